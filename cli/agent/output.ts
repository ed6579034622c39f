/** How the agent CLI prints: lines for people, JSON for scripts (`--json`). */
import type { ActiveConversation, InboxRow, InboxView } from "../../clients/agent_client.ts";
import { SECTION_WORDS } from "../../domain/conversations/state_words.ts";

const clip = (s: string | null, n: number) => {
  const one = (s ?? "").replace(/\s+/g, " ").trim();
  return one.length > n ? `${one.slice(0, n - 1)}…` : one;
};

/**
 * Where a conversation now is, after an ownership command, in the words of
 * the web inbox (docs/vocabulary.md: "With you", "With the AI", "Resolved"),
 * not the API's `status` (`agent`, `bot`, `closed`), which `--json` keeps.
 */
export function sectionWord(status: string): string {
  const section = ({ agent: "mine", bot: "ai", closed: "resolved" } as const)[
    status as "agent" | "bot" | "closed"
  ];
  return section ? SECTION_WORDS[section] : status;
}

/** A section's words, for a group code of the API (`mine`, `waiting`…). */
export function groupWords(group: string): string {
  return (SECTION_WORDS as Record<string, string>)[group] ?? group;
}

export function rowLine(r: InboxRow): string {
  const who = r.assigned_to ? ` @${r.mine ? "me" : r.assigned_to}` : "";
  const unread = r.unread ? ` (${r.unread} new)` : "";
  return `${r.id}  ${groupWords(r.group).padEnd(19)} ${clip(r.visitor, 20).padEnd(20)} ${
    r.last_at.padEnd(11)
  } ${clip(r.preview, 60)}${unread}${who}`;
}

export function inboxText(view: InboxView): string {
  const g = view.groups;
  const w = SECTION_WORDS;
  const head = `${w.waiting} ${g.waiting} · ${w.mine} ${g.mine} · ${w.team} ${g.team} · ` +
    `${w.ai} ${g.ai} · ${w.resolved} ${g.resolved} · unread ${view.counts.unread}`;
  const rows = view.conversations.map(rowLine);
  return [head, ...(rows.length ? rows : ["(no conversations)"])].join("\n");
}

export function conversationText(c: ActiveConversation): string {
  const lines = [
    `${c.visitor}${c.email ? ` <${c.email}>` : ""} · ${c.chatbot} · ${groupWords(c.group)}${
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

/** The filters' codes with their words, for the help text. */
export function filterWords(): string {
  return (["waiting", "mine", "team", "human", "ai", "resolved", "all"] as const)
    .map((f) => `${f} = ${SECTION_WORDS[f]}`).join(", ");
}
