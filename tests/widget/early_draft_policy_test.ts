/**
 * When the widget may start the provider call before the visitor's turn is
 * stored (domain/ai/reply_draft.ts): only for a new conversation, and only
 * while the quota cannot refuse the turn, so a refused message never costs
 * the workspace a provider call.
 */
import { assertEquals } from "../helpers/assert.ts";
import { mayDraftEarly } from "../../domain/widget/stream_turn.ts";

const base = { visitorId: "v-1", message: "Hello" };

Deno.test("a new conversation on an unlimited plan drafts early", () => {
  assertEquals(mayDraftEarly({ ...base, quotaHeadroom: null }), true);
});

Deno.test("a new conversation with ample quota drafts early", () => {
  assertEquals(mayDraftEarly({ ...base, quotaHeadroom: 500 }), true);
});

Deno.test("a new conversation near or at its quota waits for the turn", () => {
  for (const headroom of [0, 1, 5, -3]) {
    assertEquals(mayDraftEarly({ ...base, quotaHeadroom: headroom }), false, String(headroom));
  }
});

Deno.test("an existing conversation waits for the turn (history, a human owner)", () => {
  assertEquals(
    mayDraftEarly({ ...base, conversationId: crypto.randomUUID(), quotaHeadroom: null }),
    false,
  );
});

Deno.test("an unknown quota waits for the turn", () => {
  assertEquals(mayDraftEarly(base), false);
});
