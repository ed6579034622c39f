/**
 * When a message (widget or v1) may start the provider call before the visitor's turn is
 * stored (domain/ai/reply_draft.ts): only for a new conversation, and only
 * while the quota cannot refuse the turn, so a refused message never costs
 * the workspace a provider call, and only while few turns wait for the
 * database (the burst itself: early_draft_burst_test.ts).
 */
import { assertEquals } from "../helpers/assert.ts";
import { EARLY_DRAFTS_UP_TO_WAITING, mayDraftEarly } from "../../domain/ai/reply_draft.ts";

Deno.test("a new conversation on an unlimited plan drafts early", () => {
  assertEquals(mayDraftEarly({ quotaHeadroom: null }, 0), true);
});

Deno.test("a new conversation with ample quota drafts early", () => {
  assertEquals(mayDraftEarly({ quotaHeadroom: 500 }, 0), true);
});

Deno.test("a new conversation near or at its quota waits for the turn", () => {
  for (const headroom of [0, 1, 5, -3]) {
    assertEquals(mayDraftEarly({ quotaHeadroom: headroom }, 0), false, String(headroom));
  }
});

Deno.test("an existing conversation waits for the turn (history, a human owner)", () => {
  assertEquals(
    mayDraftEarly({ conversationId: crypto.randomUUID(), quotaHeadroom: null }, 0),
    false,
  );
});

Deno.test("an unknown quota waits for the turn", () => {
  assertEquals(mayDraftEarly({}, 0), false);
});

Deno.test("a new conversation queued behind many stored turns waits for its own", () => {
  const limit = EARLY_DRAFTS_UP_TO_WAITING;
  assertEquals(mayDraftEarly({ quotaHeadroom: null }, limit - 1), true);
  assertEquals(mayDraftEarly({ quotaHeadroom: null }, limit), false);
  assertEquals(mayDraftEarly({ quotaHeadroom: 500 }, limit + 100), false);
});
