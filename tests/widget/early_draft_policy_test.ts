/**
 * When a message (widget or v1) may start the provider call before the visitor's turn is
 * stored (domain/ai/reply_draft.ts): only for a new conversation, and only
 * while the quota cannot refuse the turn, so a refused message never costs
 * the workspace a provider call.
 */
import { assertEquals } from "../helpers/assert.ts";
import { mayDraftEarly } from "../../domain/ai/reply_draft.ts";

Deno.test("a new conversation on an unlimited plan drafts early", () => {
  assertEquals(mayDraftEarly({ quotaHeadroom: null }), true);
});

Deno.test("a new conversation with ample quota drafts early", () => {
  assertEquals(mayDraftEarly({ quotaHeadroom: 500 }), true);
});

Deno.test("a new conversation near or at its quota waits for the turn", () => {
  for (const headroom of [0, 1, 5, -3]) {
    assertEquals(mayDraftEarly({ quotaHeadroom: headroom }), false, String(headroom));
  }
});

Deno.test("an existing conversation waits for the turn (history, a human owner)", () => {
  assertEquals(mayDraftEarly({ conversationId: crypto.randomUUID(), quotaHeadroom: null }), false);
});

Deno.test("an unknown quota waits for the turn", () => {
  assertEquals(mayDraftEarly({}), false);
});
