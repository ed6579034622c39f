/**
 * The one set of words people read for where a conversation stands
 * (docs/vocabulary.md). The wire keeps the spec's two values, `status` (bot,
 * agent, closed) and `handoff_state` (bot_active, handoff_pending,
 * human_connected); a person sees one of four states derived from them, and
 * the same words in the widget, the inbox, the dashboard, the transcript, the
 * CSV export and the agent CLI. Import-free, so the browser bundles and the
 * CLI import it as they are.
 */

/** A state's code: also the inbox filter and the history's `state` filter of that name. */
export type ConversationStateCode = "ai" | "waiting" | "human" | "resolved";

/** The words for each state, as a label (sentence case). */
export const STATE_WORDS: Readonly<Record<ConversationStateCode, string>> = {
  ai: "With the AI",
  waiting: "Waiting for a human",
  human: "With a human",
  resolved: "Resolved",
};

/** One line on what each state means, for help text and the docs. */
export const STATE_HELP: Readonly<Record<ConversationStateCode, string>> = {
  ai: "The AI answers; nobody has asked for a person.",
  waiting: "The visitor asked for a person (or the AI could not answer); the AI keeps " +
    "helping until a teammate takes over.",
  human: "A teammate took the conversation over; the AI stays silent.",
  resolved: "The conversation was closed.",
};

/** The states in the order a list offers them. */
export const STATE_CODES: readonly ConversationStateCode[] = ["waiting", "human", "ai", "resolved"];

/**
 * The inbox's sections in the same words: `mine` and `team` split "With a
 * human" by who took it, `all` is every open conversation.
 */
export const SECTION_WORDS: Readonly<
  Record<ConversationStateCode | "mine" | "team" | "all", string>
> = {
  ...STATE_WORDS,
  mine: "With you",
  team: "With a teammate",
  all: "All open",
};

/** The state a conversation is in, from its two wire values. */
export function conversationState(
  status: string,
  handoffState: string | null | undefined,
): ConversationStateCode {
  if (status === "closed") return "resolved";
  if (status === "agent") return "human";
  return handoffState === "handoff_pending" ? "waiting" : "ai";
}

/** The words for a conversation's state, from its two wire values. */
export function stateWords(status: string, handoffState: string | null | undefined): string {
  return STATE_WORDS[conversationState(status, handoffState)];
}

/**
 * What the widget tells the visitor when the conversation enters a state: the
 * state's words first, so a visitor and the team that answers read the same.
 */
export const VISITOR_NOTES = {
  waiting: `${STATE_WORDS.waiting}: we've asked a teammate to join. You'll get their reply ` +
    "right here.",
  waitingNobodyOnline: `${STATE_WORDS.waiting}: no teammate is online right now. Leave your ` +
    "e-mail and we'll reply there; meanwhile I'm still here to help.",
  /** Nobody online, and the pre-chat form already gave the address: not asked again. */
  waitingReplyTo: (email: string) =>
    `${STATE_WORDS.waiting}: no teammate is online right now. We'll reply to ${email}; ` +
    "meanwhile I'm still here to help.",
  human: `${STATE_WORDS.human}: a teammate joined the chat.`,
  resolved: `${STATE_WORDS.resolved}: this conversation was closed.`,
} as const;
