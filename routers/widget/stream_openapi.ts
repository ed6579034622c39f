/**
 * POST /widget/{key}/stream in the OpenAPI document. It is a raw route (SSE,
 * not a procedure), so it describes itself with the same meta a procedure
 * declares; its statuses are derived by the same rules.
 */
import type { DescribedOperation } from "../openapi/document.ts";
import { STREAM_RATE_LIMIT, streamInput } from "./stream.ts";

const EVENTS = `Each event is \`event: <name>\` and \`data: <JSON>\`, in this order:

| Event | Data |
| --- | --- |
| \`meta\` | \`{conversation_id, visitor_message_id, status}\`: the visitor message is stored. |
| \`delta\` | \`{delta}\`: a fragment of the reply; fragments concatenate, in order, to the stored reply. |
| \`done\` | \`{message_id, source: "ai", sources: [{title, url}]}\`; while a human owns the conversation \`{message_id: null, source: "human", sources: [], note}\`. |
| \`error\` | \`{message, code}\`: the reply failed; the visitor message is kept. |

\`error.message\` is a short sentence for visitors; \`code\` is one of \`provider_not_configured\`,
\`provider_key_refused\`, \`provider_rejected\`, \`provider_unreachable\`, \`provider_error\`,
\`provider_rate_limited\`, \`quota_exceeded\`, \`still_answering\`, \`unavailable\`, \`internal\`.
The operator's cause goes to the server log. Clients ignore events they do not know.

Retries: send \`client_id\` (or the \`Idempotency-Key\` header), a new one per message and the same
one when retrying it. A retry of a stored message streams that message's \`meta\` and its stored
reply (one \`delta\` with the whole text) instead of storing it twice; the same key for a different
message is 422. A retry whose first attempt is still at work waits for its reply (up to 30 s; an
attempt whose instance died is taken over within 6 s); past that it ends with \`error\` code
\`still_answering\`, alone (no \`meta\`) when the message was not stored yet.

A refusal before the visitor message is stored (unknown bot, validation, rate limit, monthly
quota) is a plain JSON error, not a stream.`;

const EXAMPLE = [
  'event: meta\ndata: {"conversation_id":"0b6f5c1e-3d2a-4e8f-9a7b-1c2d3e4f5a6b",' +
  '"visitor_message_id":41,"status":"bot"}',
  'event: delta\ndata: {"delta":"We ship to Iceland "}',
  'event: delta\ndata: {"delta":"within five working days."}',
  'event: done\ndata: {"message_id":42,"source":"ai","sources":[{"title":"Shipping","url":null}]}',
].join("\n\n") + "\n\n";

export const streamOperation: DescribedOperation = {
  name: "widget.stream",
  meta: {
    openapi: {
      method: "POST",
      path: "/widget/{key}/stream",
      summary: "Send a visitor message and stream the AI reply (Server-Sent Events)",
      description: "Send `Accept: text/event-stream`. A visitor an agent blocked is refused " +
        "with 403 before anything is stored. " + EVENTS,
      errors: [403, 413],
      requestExample: {
        visitor_id: "v-7f3a9c",
        message: "Do you ship to Iceland?",
        client_id: "3c9d8a1e-5b2f-4d7c-8e6a-1f0b2c3d4e5f",
        meta: { page_url: "https://example.com/pricing" },
      },
    },
    rateLimit: STREAM_RATE_LIMIT,
  },
  input: streamInput,
  output: null,
  successResponse: {
    description: "The reply as Server-Sent Events: `meta`, `delta`…, then `done` or `error`.",
    content: {
      "text/event-stream": {
        schema: { type: "string", description: "A stream of `event:`/`data:` records." },
        example: EXAMPLE,
      },
    },
  },
};
