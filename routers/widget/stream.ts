/**
 * POST /widget/{key}/stream: the visitor's message and the AI reply as
 * Server-Sent Events (`meta`, `delta`…, then `done` or `error`). Every
 * refusal before the visitor message is stored is a plain JSON error with the
 * same rate limit, status mapping and 422 shape as the other doors, but one:
 * a keyed retry whose first attempt is still at work gets the `still_answering`
 * event the widget knows, whether or not that attempt has stored the message.
 */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import type { AppDeps } from "../../domain/deps.ts";
import { describeError } from "../../app/logger.ts";
import {
  Conflict,
  type ProviderFailureKind,
  ProviderUnavailable,
  QuotaExceeded,
  StillAnswering,
} from "../../domain/errors.ts";
import type { TurnAnswer } from "../../domain/widget/stream_turn.ts";
import { openWidgetTurn } from "../../domain/widget/widget_turn.ts";
import { clientIdField, idempotencyKey } from "../schemas/idempotency_key.ts";
import { enforceRateLimit, type RateLimitSpec } from "../guards/rate_limit.ts";
import { rejectUnstorableInput } from "../guards/storable_input.ts";
import { toErrorReply } from "../doors/http_errors.ts";
import { doorInput } from "../doors/door_input.ts";
import { isDatabaseUnreachable } from "../../db/unreachable.ts";
import { errorResponse, jsonResponse } from "../doors/rest_door.ts";
import { sseResponse } from "../doors/sse.ts";
import { BodyTooLarge, readBodyText } from "../doors/request_body.ts";
import { conversationIdField, keyField, visitorIdField } from "./schemas.ts";
import { atMostChars } from "../schemas/text.ts";
import { watchStream } from "../../domain/observability/metrics.ts";

export const STREAM_RATE_LIMIT: RateLimitSpec = {
  name: "widget.stream",
  limit: 20,
  windowSeconds: 60,
  by: "ip",
};

/** Encoded size allowed for `meta`: page context, not a storage space. */
const META_MAX_CHARS = 8000;

const messageField = z.string().superRefine((text, ctx) => {
  atMostChars(4000)(text, ctx);
  if (text.length === 0) {
    ctx.addIssue({ code: "custom", message: "The message field is required." });
  } else if (!text.trim()) {
    ctx.addIssue({ code: "custom", message: "The message field must not be whitespace only." });
  }
});

const metaField = z.looseObject({
  visitor: z.object({
    name: z.string().trim().max(255).nullish(),
    email: z.union([z.literal(""), z.email().max(255)]).nullish(),
    phone: z.string().trim().max(50).nullish(),
  }).nullish(),
}).superRefine((meta, ctx) => {
  if (JSON.stringify(meta).length > META_MAX_CHARS) {
    ctx.addIssue({
      code: "custom",
      message: `The meta field must not be greater than ${META_MAX_CHARS} characters as JSON.`,
    });
  }
});

export const streamInput = z.object({
  key: keyField,
  visitor_id: visitorIdField,
  message: messageField,
  conversation_id: conversationIdField.optional(),
  meta: metaField.optional(),
  identity: z.string().max(4000).optional(),
  client_id: clientIdField.optional(),
});

/**
 * The `code` of a terminal `error` event, and the visitor's text for it. The
 * operator's cause (which names keys, HTTP statuses and settings) goes to the
 * log; a visitor only learns whether trying again soon may help.
 */
const VISITOR_ERRORS = {
  provider_not_configured: "The assistant isn't available right now. Please try again later.",
  provider_key_refused: "The assistant isn't available right now. Please try again later.",
  provider_rejected: "The assistant isn't available right now. Please try again later.",
  provider_unreachable: "The assistant couldn't answer just now. Please try again in a moment.",
  provider_error: "The assistant couldn't answer just now. Please try again in a moment.",
  provider_rate_limited: "The assistant is busy right now. Please try again in a minute.",
  quota_exceeded: "The assistant isn't available right now. Please try again later.",
  still_answering: "Your message was received; its reply is still on its way. Please try again.",
  unavailable: "We're having trouble on our side. Please try again in a moment.",
  internal: "Something went wrong on our side. Please try again.",
} as const;

export type StreamErrorCode = keyof typeof VISITOR_ERRORS;

const CODE_OF_KIND: Record<ProviderFailureKind, StreamErrorCode> = {
  no_key: "provider_not_configured",
  key_refused: "provider_key_refused",
  rejected: "provider_rejected",
  unreachable: "provider_unreachable",
  provider_error: "provider_error",
  rate_limited: "provider_rate_limited",
};

/** Largest body read: the fields' own limits add up to well under this. */
export const STREAM_MAX_BODY_BYTES = 64 * 1024;

class BadBody extends Error {
  constructor(message: string, readonly status = 400) {
    super(message);
  }
}

async function readJson(req: Request): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readBodyText(req, STREAM_MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new BadBody(err.message, 413);
    throw err;
  }
  if (text.trim() === "") return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new BadBody("The request body is not valid JSON.");
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new BadBody("The request body must be a JSON object.");
  }
  return parsed as Record<string, unknown>;
}

export async function handleStream(
  req: Request,
  key: string,
  deps: AppDeps,
  ip: string,
): Promise<Response> {
  const started = performance.now();
  const headers = new Headers();
  const onFault = (err: unknown) => deps.log.error("unhandled error", describeError(err));
  try {
    await enforceRateLimit(deps.kv, STREAM_RATE_LIMIT, ip, headers);
    const raw = doorInput({}, await readJson(req), { key });
    rejectUnstorableInput(raw);
    const parsed = streamInput.safeParse(raw);
    if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", cause: parsed.error });
    const input = parsed.data;
    const visitor = input.meta?.visitor;
    const turn = await openWidgetTurn(deps, {
      botKey: input.key,
      clientId: idempotencyKey(req, input.client_id),
      visitorId: input.visitor_id,
      message: input.message,
      conversationId: input.conversation_id,
      meta: input.meta,
      visitor: visitor
        ? {
          name: visitor.name || undefined,
          email: visitor.email || undefined,
          phone: visitor.phone || undefined,
        }
        : undefined,
      identity: input.identity,
    });
    return sseResponse(async (out, signal) => {
      const watch = watchStream(started);
      out.send("meta", {
        conversation_id: turn.conversation.public_id,
        visitor_message_id: turn.visitorMessage.id,
        status: turn.conversation.status,
      });
      try {
        // Bounded like a request: a database that stops answering ends the stream.
        const answer = await deps.db.watch.guard<TurnAnswer | null>(
          turn.answer({
            onDelta: (delta) => {
              watch.firstDelta();
              out.send("delta", { delta });
            },
            signal,
          }),
          () => null,
        );
        if (answer === null) {
          watch.end("unavailable");
          out.send("error", { message: VISITOR_ERRORS.unavailable, code: "unavailable" });
          return;
        }
        watch.end(answer.source);
        // After the last delta, before `done` (SPEC, stream events).
        if (answer.source === "ai" && answer.products.length) {
          out.send("recommendations", { products: answer.products });
        }
        out.send(
          "done",
          answer.source === "ai"
            ? { message_id: answer.messageId, source: "ai", sources: answer.sources }
            : { message_id: null, source: "human", sources: [], note: answer.note },
        );
      } catch (err) {
        if (signal.aborted) return watch.end("left"); // the visitor left: nobody to tell
        const error = streamError(deps, turn.bot.public_key, err, onFault);
        watch.end(error.code);
        out.send("error", error);
      } finally {
        watch.end("internal"); // ended above on every known path
      }
    }, { headers, onError: onFault });
  } catch (err) {
    if (err instanceof BadBody) return jsonResponse(err.status, { message: err.message }, headers);
    if (err instanceof StillAnswering) {
      // Nothing stored by this request, so no `meta` to send: the stream is its end alone.
      const error = streamError(deps, key, err, onFault);
      return sseResponse((out) => {
        out.send("error", error);
        return Promise.resolve();
      }, { headers, onError: onFault });
    }
    return errorResponse(toErrorReply(err, onFault), headers);
  }
}

function streamError(
  deps: AppDeps,
  botKey: string,
  err: unknown,
  onFault: (err: unknown) => void,
): { message: string; code: StreamErrorCode } {
  let code: StreamErrorCode = "internal";
  if (err instanceof ProviderUnavailable) code = CODE_OF_KIND[err.kind];
  else if (err instanceof QuotaExceeded) code = "quota_exceeded";
  else if (err instanceof Conflict) code = "still_answering";
  else if (isDatabaseUnreachable(err)) code = "unavailable";
  if (code === "internal") onFault(err);
  else deps.log.warn("widget reply failed", { bot: botKey, code, cause: (err as Error).message });
  return { message: VISITOR_ERRORS[code], code };
}
