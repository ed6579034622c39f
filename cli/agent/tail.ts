/**
 * `tail`: follows the inbox and prints one line per event. Events come from
 * the workspace's realtime channel as they happen; while the socket is not
 * connected the inbox is polled and changes are printed as the events they
 * stand for (`conversation.created` for a new row, `conversation.updated`
 * for a changed one), marked `via poll`.
 */
import type { AgentClient, InboxRow } from "../../clients/agent_client.ts";
import { followInbox } from "../../clients/inbox_live.ts";
import { groupWords } from "./output.ts";

export interface TailOptions {
  client: AgentClient;
  server: string;
  realtimeKey: string;
  workspaceId: number;
  /** The signed-in agent: a row assigned to them reads `mine`, as in the web inbox. */
  userId: number;
  json: boolean;
  pollMs: number;
  write(line: string): void;
  /** Called once the inbox as it stands is known: every later change is printed. */
  ready(): void;
  /** Resolves when the tail should stop (Ctrl-C, or a test's signal). */
  stopped: Promise<void>;
}

type Row = Pick<InboxRow, "id" | "visitor" | "status" | "preview" | "escalated" | "assigned_to">;

const signature = (r: Row) => `${r.status}|${r.preview}|${r.escalated}|${r.assigned_to}`;

export async function tail(o: TailOptions): Promise<void> {
  const seen = new Map<string, string>();
  const snapshot = async () => {
    const [open, resolved] = await Promise.all([
      o.client.agent.inbox.query({ filter: "all" }),
      o.client.agent.inbox.query({ filter: "resolved" }),
    ]);
    return [...open.conversations, ...resolved.conversations];
  };
  for (const r of await snapshot()) seen.set(r.id, signature(r));

  const print = (event: string, data: unknown, via: "realtime" | "poll", channel?: string) => {
    if (o.json) {
      o.write(JSON.stringify({ at: new Date().toISOString(), event, via, channel, data }));
      return;
    }
    const text = describe(event, data, o.userId);
    if (text === null) return;
    const time = new Date().toISOString().slice(11, 19);
    o.write(`${time} ${event} ${text}${via === "poll" ? " (via poll)" : ""}`);
  };

  // "Following…" is said once the feed is really live (subscribed, or polling
  // as the fallback) and caught up: what happens after it is printed as it comes.
  let announced = false;
  const announce = () => {
    if (announced) return;
    announced = true;
    o.ready();
  };

  let polling = false;
  const poll = async () => {
    if (polling) return;
    polling = true;
    try {
      for (const r of await snapshot()) {
        const sig = signature(r);
        const before = seen.get(r.id);
        if (before === sig) continue;
        seen.set(r.id, sig);
        print(before === undefined ? "conversation.created" : "conversation.updated", r, "poll");
      }
    } catch (err) {
      o.write(
        o.json
          ? JSON.stringify({ event: "error", message: String(err) })
          : `poll failed: ${(err as Error).message}`,
      );
    } finally {
      polling = false;
    }
  };

  const live = followInbox({
    baseUrl: o.server,
    client: o.client,
    realtimeKey: o.realtimeKey,
    workspaceId: o.workspaceId,
    pollMs: o.pollMs,
    onEvent: (channel, event, data) => {
      const row = data as Partial<Row>;
      if (event.startsWith("conversation.") && typeof row.id === "string") {
        seen.set(row.id, signature(row as Row));
      }
      print(event, data, "realtime", channel);
    },
    onChange: (why) => {
      // Live once subscribed (or polling as the fallback), after one catch-up.
      if (why === "subscribed" || why === "poll") void poll().then(announce);
      else if (why === "connected") void poll();
    },
  });
  try {
    await o.stopped;
  } finally {
    live.close();
  }
}

/** One readable line for people; null: not worth a line (the `--json` stream has everything). */
function describe(event: string, data: unknown, userId: number): string | null {
  const d = (data ?? {}) as Record<string, unknown>;
  if (event === "message.created") {
    const m = (d.message ?? {}) as { role?: string; content?: string };
    return `${d.conversation_id} ${m.role}: ${oneLine(m.content)}`;
  }
  if (event === "visitor.seen") {
    // Every widget heartbeat (about every 10 s per visitor): only an arrival is news.
    if (!d.arrived) return null;
    const page = typeof d.page_url === "string" && d.page_url ? d.page_url : "a page";
    return `visitor ${d.visitor_id} arrived on ${page}${d.chat_open ? " (chat open)" : ""}`;
  }
  if (typeof d.id === "string" && "visitor" in d) {
    const reason = typeof d.reason === "string" ? ` [${d.reason}]` : "";
    // The web inbox's section words: a broadcast row has no viewer, so `mine` is worked out here.
    const section = d.assigned_user_id === userId && d.status === "agent" ? "mine" : d.group;
    return `${d.id} ${d.visitor} (${groupWords(String(section))})${reason}: ${
      oneLine(d.preview as string | null)
    }`;
  }
  return typeof d.conversation_id === "string" ? d.conversation_id : JSON.stringify(d);
}

function oneLine(s: string | null | undefined): string {
  const t = (s ?? "").replace(/\s+/g, " ").trim();
  return t.length > 100 ? `${t.slice(0, 99)}…` : t;
}
