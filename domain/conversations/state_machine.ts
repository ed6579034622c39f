/**
 * The conversation state machine: one table of status × handoff_state
 * transitions (SPEC "States and transitions"), applied in one place so the AI
 * can never answer while a human owns a conversation.
 *
 * States: status `bot` | `agent` | `closed`; handoff_state `bot_active` |
 * `handoff_pending` (visitor asked for a human, AI keeps helping meanwhile) |
 * `human_connected` (a person owns it; always together with status `agent`).
 */
import type { Executor } from "../../db/client.ts";
import {
  type ConversationPatch,
  type ConversationRow,
  type ConversationStatus,
  updateConversation,
} from "../../db/conversations.ts";
import { Conflict } from "../errors.ts";

export type TransitionName =
  | "visitorMessage"
  | "agentReply"
  | "takeover"
  | "release"
  | "resolve"
  | "reopen"
  | "visitorReset"
  | "requestHuman"
  | "assign"
  | "invite"
  | "aiFailed";

export interface TransitionContext {
  now: Date;
  /** The agent acting (takeover, reply, resolve). */
  actorUserId?: number | null;
  /** `assign`: the agent who will own the conversation, or null to unassign. */
  assigneeUserId?: number | null;
  /** `aiFailed`: why the AI could not answer (shown to agents). */
  reason?: string;
}

interface Transition {
  /** Statuses this transition may start from; any other is a Conflict (409). */
  from: readonly ConversationStatus[];
  /** Statuses where the transition changes nothing (idempotent calls). */
  noop?: readonly ConversationStatus[];
  patch(row: ConversationRow, ctx: TransitionContext): ConversationPatch;
}

const toBot = (): ConversationPatch => ({
  status: "bot",
  handoff_state: "bot_active",
  assigned_user_id: null,
  ai_failure: null,
});

const TABLE: Record<TransitionName, Transition> = {
  // A resolved (or reset) conversation reopens on the visitor's next message.
  visitorMessage: {
    from: ["bot", "agent", "closed"],
    noop: ["bot", "agent"],
    patch: () => ({ ...toBot(), resolution: null, resolved_at: null, resolved_by_ai: false }),
  },
  // Any agent reply takes the conversation over (SPEC: from any status).
  agentReply: {
    from: ["bot", "agent", "closed"],
    patch: (row, ctx) => ({
      status: "agent",
      handoff_state: "human_connected",
      assigned_user_id: row.assigned_user_id ?? ctx.actorUserId ?? null,
      resolution: null,
      resolved_at: null,
    }),
  },
  takeover: {
    from: ["bot", "agent"],
    patch: (_row, ctx) => ({
      status: "agent",
      handoff_state: "human_connected",
      assigned_user_id: ctx.actorUserId ?? null,
    }),
  },
  release: { from: ["agent", "bot"], noop: ["bot"], patch: toBot },
  resolve: {
    from: ["bot", "agent", "closed"],
    noop: ["closed"],
    patch: (_row, ctx) => ({
      status: "closed",
      handoff_state: "bot_active",
      resolution: "resolved",
      resolved_at: ctx.now,
    }),
  },
  reopen: {
    from: ["closed", "bot", "agent"],
    noop: ["bot", "agent"],
    patch: () => ({ ...toBot(), resolution: null, resolved_at: null, resolved_by_ai: false }),
  },
  // The widget's "start a new chat": closes without marking it resolved.
  visitorReset: {
    from: ["bot", "agent", "closed"],
    noop: ["closed"],
    patch: () => ({ status: "closed", handoff_state: "bot_active" }),
  },
  // Assigning hands an open conversation to that person (the AI stops);
  // unassigning leaves it with the team. A closed one only changes hands.
  assign: {
    from: ["bot", "agent", "closed"],
    patch: (row, ctx) => {
      const assignee = ctx.assigneeUserId ?? null;
      if (assignee === null || row.status === "closed") return { assigned_user_id: assignee };
      return { status: "agent", handoff_state: "human_connected", assigned_user_id: assignee };
    },
  },
  // An agent's invitation to a visitor whose conversation is open: a human
  // owns it from now on, so the AI does not talk over the agent.
  invite: {
    from: ["bot", "agent"],
    patch: (row, ctx) => ({
      status: "agent",
      handoff_state: "human_connected",
      assigned_user_id: row.assigned_user_id ?? ctx.actorUserId ?? null,
    }),
  },
  requestHuman: {
    from: ["bot", "agent"],
    noop: ["agent"],
    patch: (row, ctx) =>
      row.handoff_state === "handoff_pending"
        ? {}
        : { handoff_state: "handoff_pending", handoff_requested_at: ctx.now },
  },
  // The AI could not answer (no model, no key, provider down) and the visitor saw an error:
  // the conversation waits for a human, as if the visitor had asked, with the reason kept.
  aiFailed: {
    from: ["bot", "agent"],
    noop: ["agent"],
    patch: (row, ctx) => ({
      ai_failure: ctx.reason ?? "The AI could not answer.",
      ...(row.handoff_state === "handoff_pending"
        ? {}
        : { handoff_state: "handoff_pending", handoff_requested_at: ctx.now }),
    }),
  },
};

/** The patch a transition would write, or Conflict when not allowed from the row's status. */
export function planTransition(
  row: ConversationRow,
  name: TransitionName,
  ctx: TransitionContext,
): ConversationPatch {
  const t = TABLE[name];
  if (!t.from.includes(row.status)) {
    throw new Conflict(`The conversation is ${row.status}; it cannot ${describe(name)} now.`);
  }
  if (t.noop?.includes(row.status)) return {};
  return t.patch(row, ctx);
}

/** Whether `name` would leave `row` exactly as it is (and so write nothing). */
export function changesNothing(
  row: ConversationRow,
  name: TransitionName,
  ctx: TransitionContext,
): boolean {
  return Object.keys(changedFields(row, planTransition(row, name, ctx))).length === 0;
}

/**
 * The conversation values at which an agent's reply changes nothing: the
 * replying agent's own, a human connected, not resolved. The reply's
 * one-statement path stores a message only while the conversation has them
 * (domain/conversations/reply_as_agent.ts); the state machine's tests check
 * that they are a fixed point of `agentReply`.
 */
export function agentReplyFixedPoint(actorUserId: number) {
  return {
    status: "agent",
    handoff_state: "human_connected",
    assigned_user_id: actorUserId,
    resolution: null,
    resolved_at: null,
  } as const satisfies ConversationPatch;
}

/** Apply one transition to a conversation row (inside the caller's transaction). */
export async function applyTransition(
  tx: Executor,
  row: ConversationRow,
  name: TransitionName,
  ctx: TransitionContext,
): Promise<ConversationRow> {
  const patch = changedFields(row, planTransition(row, name, ctx));
  if (Object.keys(patch).length === 0) return row;
  return await updateConversation(tx, row.workspace_id, row.id, patch);
}

/**
 * Only the fields the patch really changes: an agent's second reply leaves an
 * owned conversation as it was, and then nothing is written (a round trip and
 * a row version less on the hottest agent path).
 */
function changedFields(row: ConversationRow, patch: ConversationPatch): ConversationPatch {
  const changed: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(patch)) {
    const current = (row as unknown as Record<string, unknown>)[key];
    const same = value instanceof Date && current instanceof Date
      ? value.getTime() === current.getTime()
      : value === current;
    if (!same) changed[key] = value;
  }
  return changed as ConversationPatch;
}

/** The AI answers only while no human owns the conversation. */
export function aiMayAnswer(row: Pick<ConversationRow, "status" | "handoff_state">): boolean {
  return row.status !== "agent" && row.handoff_state !== "human_connected";
}

function describe(name: TransitionName): string {
  return ({
    visitorMessage: "take a visitor message",
    agentReply: "take an agent reply",
    takeover: "be taken over",
    release: "be released to the AI",
    resolve: "be resolved",
    reopen: "be reopened",
    visitorReset: "be reset",
    requestHuman: "request a human",
    assign: "be assigned",
    invite: "take an invitation",
    aiFailed: "wait for a human",
  } as const)[name];
}
