/** How the agent CLI prints: lines for people, JSON for scripts (`--json`). */
import type { ActiveConversation, InboxRow, InboxView } from "../../clients/agent_client.ts";

const clip = (s: string | null, n: number) => {
  const one = (s ?? "").replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

/**
 * The inbox's word for where a conversation now is, after an ownership
 * command: one vocabulary with the web inbox (`mine`, `ai`, `resolved`), not
 * the API's `status` (`agent`, `bot`, `closed`), which `--json` keeps.
 */
export function sectionWord(status: string): string {
  return ({ agent: "mine", bot: "ai", closed: "resolved" } as Record<string, string>)[status] ??
    status;
}

export function rowLine(r: InboxRow): string {
  const who = r.assigned_to ? ` @${r.mine ? "me" : r.assigned_to}` : "";
  const unread = r.unread ? ` (${r.unread} new)` : "";
  return `${r.id}  ${r.group.padEnd(8)} ${clip(r.visitor, 20).padEnd(20)} ${r.last_at.padEnd(11)} ${
    clip(r.preview, 60)
  }${unread}${who}`;
}

export function inboxText(view: InboxView): string {
  const g = view.groups;
  const head =
    `waiting ${g.waiting} · mine ${g.mine} · team ${g.team} · ai ${g.ai} · resolved ${g.resolved} · unread ${view.counts.unread}`;
  const rows = view.conversations.map(rowLine);
  return [head, ...(rows.length ? rows : ["(no conversations)"])].join("\n");
}

export function conversationText(c: ActiveConversation): string {
  const lines = [
    `${c.visitor}${c.email ? ` <${c.email}>` : ""} · ${c.chatbot} · ${c.group}${
      c.assigned_to ? ` · assigned to ${c.assigned_to}` : ""
    }`,
    `id ${c.id}${c.page ? ` · on ${c.page}` : ""}${c.online ? " · online" : ""}`,
    "",
    ...c.messages.map((m) => `[${m.at}] ${m.role.padEnd(9)} ${m.content}`),
  ];
  if (c.notes.length) {
    lines.push("", ...c.notes.map((n) => `[${n.at}] note      ${n.author ?? ""}: ${n.body}`));
  }
  return lines.join("\n");
}
