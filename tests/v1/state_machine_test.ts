/**
 * The conversation state machine's table (pure): which transitions each
 * status allows, what they write, and that the AI never answers while a
 * human owns a conversation.
 */
import { assert_, assertEquals, assertOk } from "../helpers/assert.ts";
import type { ConversationRow, ConversationStatus } from "../../db/conversations.ts";
import {
  agentReplyFixedPoint,
  aiMayAnswer,
  changesNothing,
  planTransition,
  type TransitionName,
} from "../../domain/conversations/state_machine.ts";
import { Conflict } from "../../domain/errors.ts";

const now = new Date("2026-11-21T10:00:00Z");

function row(status: ConversationStatus, extra: Partial<ConversationRow> = {}): ConversationRow {
  return {
    id: 1,
    public_id: "00000000-0000-4000-8000-000000000001",
    workspace_id: 1,
    chatbot_id: 1,
    visitor_id: "v",
    channel: "widget",
    status,
    handoff_state: status === "agent" ? "human_connected" : "bot_active",
    handoff_requested_at: null,
    resolution: status === "closed" ? "resolved" : null,
    resolved_at: status === "closed" ? now : null,
    resolved_by_ai: false,
    assigned_user_id: status === "agent" ? 7 : null,
    meta: {},
    visitor_name: null,
    visitor_email: null,
    visitor_phone: null,
    rating: null,
    rating_comment: null,
    last_message_at: now,
    created_at: now,
    last_visitor_message_id: null,
    visitor_message_count: 0,
    read_by: [],
    routed_by: null,
    ai_failure: null,
    ...extra,
  };
}

Deno.test("a visitor message reopens a closed conversation and changes nothing else", () => {
  assertEquals(planTransition(row("closed"), "visitorMessage", { now }), {
    status: "bot",
    handoff_state: "bot_active",
    assigned_user_id: null,
    ai_failure: null,
    resolution: null,
    resolved_at: null,
    resolved_by_ai: false,
  });
  assertEquals(planTransition(row("bot"), "visitorMessage", { now }), {});
  assertEquals(planTransition(row("agent"), "visitorMessage", { now }), {});
});

Deno.test("takeover and agent reply hand the conversation to a human", () => {
  const taken = planTransition(row("bot"), "takeover", { now, actorUserId: 3 });
  assertEquals(taken, { status: "agent", handoff_state: "human_connected", assigned_user_id: 3 });
  const replied = planTransition(row("closed"), "agentReply", { now, actorUserId: 3 });
  assertEquals(replied.status, "agent");
  assertEquals(replied.handoff_state, "human_connected");
  assertEquals(replied.resolution, null);
  assert_.throws(() => planTransition(row("closed"), "takeover", { now }), Conflict);
});

Deno.test("an agent's reply changes nothing at its fixed point", () => {
  // The reply's one-statement path trusts these values to need no transition.
  const fixed = agentReplyFixedPoint(3);
  assertOk(changesNothing(row("agent", fixed), "agentReply", { now, actorUserId: 3 }));
  // Away from it in any one value, the reply has something to write.
  const away: Partial<ConversationRow>[] = [
    { status: "bot", handoff_state: "bot_active" },
    { status: "closed", handoff_state: "bot_active" },
    { handoff_state: "handoff_pending" },
    { assigned_user_id: null },
    { resolution: "resolved" },
    { resolved_at: now },
  ];
  for (const change of away) {
    const r = row("agent", { ...fixed, ...change });
    assertEquals(
      changesNothing(r, "agentReply", { now, actorUserId: 3 }),
      false,
      JSON.stringify(change),
    );
  }
});

Deno.test("release, resolve and reopen follow the spec's table", () => {
  assertEquals(planTransition(row("agent"), "release", { now }), {
    status: "bot",
    handoff_state: "bot_active",
    assigned_user_id: null,
    ai_failure: null,
  });
  const resolved = planTransition(row("bot"), "resolve", { now });
  assertEquals([resolved.status, resolved.resolution, resolved.resolved_at], [
    "closed",
    "resolved",
    now,
  ]);
  assertEquals(planTransition(row("closed"), "resolve", { now }), {}, "idempotent");
  assertEquals(planTransition(row("closed"), "reopen", { now }).status, "bot");
  assert_.throws(() => planTransition(row("closed"), "release", { now }), Conflict);
});

Deno.test("a widget reset closes without resolving; a human request is recorded once", () => {
  assertEquals(planTransition(row("bot"), "visitorReset", { now }), {
    status: "closed",
    handoff_state: "bot_active",
  });
  assertEquals(planTransition(row("bot"), "requestHuman", { now }), {
    handoff_state: "handoff_pending",
    handoff_requested_at: now,
  });
  const pending = row("bot", { handoff_state: "handoff_pending", handoff_requested_at: now });
  assertEquals(planTransition(pending, "requestHuman", { now }), {});
  assert_.throws(() => planTransition(row("closed"), "requestHuman", { now }), Conflict);
});

Deno.test("the AI answers only while no human owns the conversation", () => {
  assertOk(aiMayAnswer(row("bot")));
  assertOk(aiMayAnswer(row("bot", { handoff_state: "handoff_pending" })));
  assertOk(!aiMayAnswer(row("agent")));
  assertOk(!aiMayAnswer(row("bot", { handoff_state: "human_connected" })));
  const all: TransitionName[] = ["takeover", "agentReply"];
  for (const name of all) {
    const patch = planTransition(row("bot"), name, { now, actorUserId: 1 });
    assertOk(!aiMayAnswer({ ...row("bot"), ...patch }), name);
  }
});

Deno.test("assign hands an open conversation to a person, and null leaves it with the team", () => {
  assertEquals(planTransition(row("bot"), "assign", { now, assigneeUserId: 9 }), {
    status: "agent",
    handoff_state: "human_connected",
    assigned_user_id: 9,
  });
  assertEquals(planTransition(row("agent"), "assign", { now, assigneeUserId: null }), {
    assigned_user_id: null,
  });
  assertEquals(planTransition(row("closed"), "assign", { now, assigneeUserId: 9 }), {
    assigned_user_id: 9,
  });
});

Deno.test("the AI's failure makes an AI conversation wait for a human, with the reason", () => {
  const reason = "The AI could not answer: no key";
  assertEquals(planTransition(row("bot"), "aiFailed", { now, reason }), {
    ai_failure: reason,
    handoff_state: "handoff_pending",
    handoff_requested_at: now,
  });
  // Already waiting (the visitor asked first): the request keeps its time.
  const waiting = row("bot", { handoff_state: "handoff_pending", handoff_requested_at: now });
  assertEquals(planTransition(waiting, "aiFailed", { now, reason }), { ai_failure: reason });
  assertEquals(planTransition(row("agent"), "aiFailed", { now, reason }), {}, "a human owns it");
  assert_.throws(() => planTransition(row("closed"), "aiFailed", { now, reason }), Conflict);
});
