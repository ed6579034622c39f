/**
 * POST /api/dashboard/chatbots/{key}/try: the try-it box. A raw route because
 * its answer is Server-Sent Events (`passages`, `delta`…, then `done` or
 * `error`); every refusal before the stream opens is the house's plain JSON
 * error, with the same token check, permission, rate limit and 422 shape as
 * the dashboard's procedures.
 */
import { TRPCError } from "@trpc/server";
import { z } from "zod";
import type { AppDeps } from "../../domain/deps.ts";
import type { RawRoute } from "../raw_routes.ts";
import type { DescribedOperation } from "../openapi/document.ts";
import { describeError } from "../../app/logger.ts";
import { authenticate } from "../../domain/auth/tokens.ts";
import { can } from "../../domain/auth/permissions.ts";
import { Forbidden, ProviderUnavailable } from "../../domain/errors.ts";
import { tryBot } from "../../domain/dashboard/try_bot.ts";
import { enforceRateLimit, type RateLimitSpec } from "../guards/rate_limit.ts";
import { rejectUnstorableInput } from "../guards/storable_input.ts";
import { toErrorReply } from "../doors/http_errors.ts";
import { errorResponse, jsonResponse } from "../doors/rest_door.ts";
import { sseResponse } from "../doors/sse.ts";
import { BodyTooLarge, readBodyText } from "../doors/request_body.ts";
import { atMostChars } from "../schemas/text.ts";

export const TRY_RATE_LIMIT: RateLimitSpec = {
  name: "dashboard-try",
  limit: 20,
  windowSeconds: 60,
  by: "user",
};
const PERMISSION = "manage-content" as const;
const MAX_BODY_BYTES = 32 * 1024;

const tryInput = z.object({
  key: z.string().min(1).max(255),
  question: z.string().superRefine((text, ctx) => {
    atMostChars(4000)(text, ctx);
    if (!text.trim()) ctx.addIssue({ code: "custom", message: "The question field is required." });
  }),
});

class BadBody extends Error {
  constructor(message: string, readonly status = 400) {
    super(message);
  }
}

async function readJson(req: Request): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await readBodyText(req, MAX_BODY_BYTES);
  } catch (err) {
    if (err instanceof BodyTooLarge) throw new BadBody(err.message, 413);
    throw err;
  }
  if (text.trim() === "") return {};
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === "object" && !Array.isArray(parsed)) return parsed;
  } catch { /* answered below */ }
  throw new BadBody("The request body must be a JSON object.");
}

async function handleTry(req: Request, key: string, deps: AppDeps): Promise<Response> {
  const headers = new Headers();
  const onFault = (err: unknown) => deps.log.error("unhandled error", describeError(err));
  try {
    const auth = await authenticate(
      deps.sql,
      req.headers.get("authorization"),
      "dashboard",
      deps.clock(),
    );
    if (!can(auth.user.role, "view-dashboard")) {
      throw new Forbidden(
        "The dashboard is for owners, administrators and viewers. Agents work in the inbox at /inbox.",
      );
    }
    if (!can(auth.user.role, PERMISSION)) {
      throw new Forbidden(`Your role does not have the ${PERMISSION} permission.`);
    }
    await enforceRateLimit(deps.kv, TRY_RATE_LIMIT, String(auth.user.id), headers);
    const body = await readJson(req);
    rejectUnstorableInput(body);
    const parsed = tryInput.safeParse({ ...body, key });
    if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", cause: parsed.error });
    const run = await tryBot(deps, auth.workspace.id, parsed.data.key, parsed.data.question);
    return sseResponse(async (out, signal) => {
      out.send("passages", { model: run.model, passages: run.passages });
      try {
        const usage = await run.answer((delta) => out.send("delta", { delta }), signal);
        out.send("done", usage);
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof ProviderUnavailable) {
          out.send("error", { message: err.message, code: err.kind });
        } else {
          onFault(err);
          out.send("error", { message: "Something went wrong on our side.", code: "internal" });
        }
      }
    }, { headers, onError: onFault });
  } catch (err) {
    if (err instanceof BadBody) return jsonResponse(err.status, { message: err.message }, headers);
    return errorResponse(toErrorReply(err, onFault), headers);
  }
}

const EVENTS = `Send \`Accept: text/event-stream\`. Each event is \`event: <name>\` and
\`data: <JSON>\`, in this order:

| Event | Data |
| --- | --- |
| \`passages\` | \`{model, passages: [{rank, source_id, source_title, title, url, content, score, correction}]}\`: what retrieval put into the prompt, best first, with its fused score; \`correction\` is true for a passage from a correction of an AI reply. |
| \`delta\` | \`{delta}\`: a fragment of the answer, in order. |
| \`done\` | \`{tokens_in, tokens_out, cost_micro_cents}\` |
| \`error\` | \`{message, code}\`: the provider failed (\`code\` is the failure's kind, e.g. \`no_key\`, \`unreachable\`). |

Nothing is stored and the try does not count against the plan's monthly messages; the provider
tokens are spent on the workspace's key. Works on an inactive bot too.`;

export const tryOperation: DescribedOperation = {
  name: "dashboard.tryBot",
  meta: {
    openapi: {
      method: "POST",
      path: "/api/dashboard/chatbots/{key}/try",
      summary: "Ask a bot a question and stream its answer with the passages it used (SSE)",
      description: EVENTS,
      errors: [413],
      requestExample: { question: "Do you ship to Iceland?" },
    },
    auth: "dashboard",
    permission: PERMISSION,
    rateLimit: TRY_RATE_LIMIT,
  },
  input: tryInput,
  output: null,
  successResponse: {
    description: "The answer as Server-Sent Events: `passages`, `delta`…, then `done` or `error`.",
    content: {
      "text/event-stream": {
        schema: { type: "string", description: "A stream of `event:`/`data:` records." },
        example: 'event: passages\ndata: {"model":"gpt-4o-mini","passages":[]}\n\n' +
          'event: delta\ndata: {"delta":"Yes."}\n\n' +
          'event: done\ndata: {"tokens_in":120,"tokens_out":3,"cost_micro_cents":20}\n\n',
      },
    },
  },
};

export const dashboardTryRoutes: RawRoute[] = [{
  method: "POST",
  pattern: ["api", "dashboard", "chatbots", null, "try"],
  template: "/api/dashboard/chatbots/{key}/try",
  handle: (req, params, deps) => handleTry(req, params[0]!, deps),
  openapi: tryOperation,
}];
