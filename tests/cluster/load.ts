/**
 * Steady load through the balancer for the instance-loss tests: widget
 * streams (each a new conversation) and agent replies to one conversation,
 * a few at a time, each outcome kept with what it acknowledged.
 */
import { T } from "../helpers/fixtures.ts";
import { readStream } from "./cluster_helpers.ts";

export interface Outcome {
  kind: "stream" | "reply";
  startedAt: number;
  ok: boolean;
  error?: string;
  /** What the server acknowledged: a visitor message (`meta`) or an agent reply (200). */
  ack?: { conversation: string; messageId: number };
}

async function oneStream(lb: string, n: number): Promise<Outcome> {
  const startedAt = performance.now();
  try {
    const r = await readStream(lb, "acme-helper", {
      visitor_id: `v_load_${n}`,
      message: `Question number ${n}`,
    });
    const meta = r.events.find((e) => e.event === "meta");
    const ack = meta
      ? { conversation: meta.data.conversation_id, messageId: meta.data.visitor_message_id }
      : undefined;
    const last = r.events.at(-1)?.event;
    const ok = r.status === 200 && last === "done" && !r.error;
    return {
      kind: "stream",
      startedAt,
      ok,
      ack,
      error: ok ? undefined : `stream ${r.status} ${last} ${r.error ?? ""}`,
    };
  } catch (err) {
    return { kind: "stream", startedAt, ok: false, error: `stream: ${err}` };
  }
}

async function oneReply(lb: string, conversation: string, n: number): Promise<Outcome> {
  const startedAt = performance.now();
  try {
    const res = await fetch(`${lb}/api/agent/conversations/${conversation}/reply`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${T.acme.agent.agent}`,
        "content-type": "application/json",
        accept: "application/json",
      },
      body: JSON.stringify({ body: `Reply number ${n}`, client_id: `load-${n}` }),
    });
    const body = await res.json().catch(() => null);
    if (res.status !== 200) {
      return {
        kind: "reply",
        startedAt,
        ok: false,
        error: `reply ${res.status} ${JSON.stringify(body)}`,
      };
    }
    return {
      kind: "reply",
      startedAt,
      ok: true,
      ack: { conversation, messageId: body.message.id },
    };
  } catch (err) {
    return { kind: "reply", startedAt, ok: false, error: `reply: ${err}` };
  }
}

/** Starts `streams` stream loops and `replies` reply loops; `stop()` ends them and returns every outcome. */
export function runLoad(lb: string, conversation: string, streams = 3, replies = 2) {
  const outcomes: Outcome[] = [];
  let running = true;
  let n = 0;
  const loop = async (one: () => Promise<Outcome>) => {
    while (running) outcomes.push(await one());
  };
  const loops = [
    ...Array.from({ length: streams }, () => loop(() => oneStream(lb, ++n))),
    ...Array.from({ length: replies }, () => loop(() => oneReply(lb, conversation, ++n))),
  ];
  return {
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}
