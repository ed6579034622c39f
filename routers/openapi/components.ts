/**
 * The parts every operation shares: our error bodies (`{message}` and
 * `{message, errors}`, exactly what both doors send), one response per error
 * status, the bearer scheme of each token surface, and the surfaces as tags.
 */
import type { Ability } from "../../db/tokens.ts";
import type { JsonSchema } from "./json_schema.ts";

export const SCHEMAS: Record<string, JsonSchema> = {
  Error: {
    type: "object",
    description: "Every failed request: a sentence for people. No code, no stack trace.",
    properties: { message: { type: "string", examples: ["Not found."] } },
    required: ["message"],
  },
  ValidationError: {
    type: "object",
    description: "Validation or a business rule refused the request. `errors` names each " +
      "field (as sent) with its reasons; some refusals add fields, documented per operation.",
    properties: {
      message: {
        type: "string",
        examples: ["The message field is required. (and 1 more error)"],
      },
      errors: {
        type: "object",
        additionalProperties: { type: "array", items: { type: "string" } },
        examples: [{
          message: ["The message field is required."],
          visitor_id: ["The visitor id field must not be greater than 100 characters."],
        }],
      },
    },
    required: ["message", "errors"],
  },
  ProviderError: {
    type: "object",
    description: "The AI provider failed. `message` names the cause: no key configured, key " +
      "refused (401/403), unreachable (network, time-out), rate limited (429), provider fault " +
      "(5xx), or request refused (e.g. unknown model). When the visitor message was already " +
      "stored, `conversation_id` names its conversation, so a retry can continue it.",
    properties: {
      message: {
        type: "string",
        examples: [
          "The AI provider refused the API key (HTTP 401). Check the provider key configured " +
          "for the workspace.",
        ],
      },
      conversation_id: { type: "string", format: "uuid" },
    },
    required: ["message"],
  },
};

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

function errorResponse(description: string, example: string, schema = "Error") {
  return {
    description,
    content: { "application/json": { schema: ref(schema), example: { message: example } } },
  };
}

const RATE_HEADERS = {
  "Retry-After": {
    description: "Seconds to wait before trying again.",
    schema: { type: "integer" },
  },
  "X-RateLimit-Limit": {
    description: "Requests allowed in the window (routes with a rate limit).",
    schema: { type: "integer" },
  },
  "X-RateLimit-Remaining": {
    description: "Requests left in the window (routes with a rate limit).",
    schema: { type: "integer" },
  },
};

/** Error status → name of its shared response. */
export const ERROR_RESPONSE_NAMES: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthenticated",
  403: "Forbidden",
  404: "NotFound",
  409: "Conflict",
  413: "PayloadTooLarge",
  422: "ValidationFailed",
  429: "TooManyRequests",
  500: "ServerError",
  502: "ProviderFailed",
  503: "Unavailable",
};

export const RESPONSES: Record<string, unknown> = {
  BadRequest: errorResponse(
    "The body is not a JSON object.",
    "The request body is not valid JSON.",
  ),
  Unauthenticated: errorResponse(
    "Token missing, malformed, expired or revoked.",
    "Unauthenticated.",
  ),
  Forbidden: errorResponse(
    "Token valid but not allowed: wrong ability for the surface, role without the permission, " +
      "or a suspended account or workspace.",
    "This action is unauthorized.",
  ),
  NotFound: errorResponse(
    "The record does not exist or belongs to another workspace (indistinguishable by design).",
    "Not found.",
  ),
  Conflict: errorResponse("The request conflicts with the current state.", "Conflict."),
  PayloadTooLarge: errorResponse(
    "The body is larger than allowed.",
    "The request body is too large.",
  ),
  ValidationFailed: {
    description: "Validation failed or a business rule refused the request.",
    content: {
      "application/json": {
        schema: ref("ValidationError"),
        example: {
          message: "The message field is required.",
          errors: { message: ["The message field is required."] },
        },
      },
    },
  },
  TooManyRequests: {
    description: "A rate limit, the workspace's monthly message quota, or a login lockout; " +
      "wait `Retry-After` seconds when given.",
    headers: RATE_HEADERS,
    content: {
      "application/json": {
        schema: ref("Error"),
        example: { message: "Too many requests. Please slow down." },
      },
    },
  },
  ServerError: errorResponse(
    "A fault on our side; the action did not complete. Details go to the server log only.",
    "Server error.",
  ),
  ProviderFailed: {
    description: "The AI provider failed; `message` names the cause.",
    content: {
      "application/json": {
        schema: ref("ProviderError"),
        example: {
          message: "The AI provider could not be reached (connection refused). The key was not " +
            "checked: look at the network, or at AI_BASE_URL when one is set.",
          conversation_id: "0b6f5c1e-3d2a-4e8f-9a7b-1c2d3e4f5a6b",
        },
      },
    },
  },
  Unavailable: errorResponse(
    "The database is unreachable (retry after `Retry-After` seconds), the server is shutting " +
      "down, or a capability this server was not configured for (push without VAPID keys).",
    "The service is temporarily unavailable. Please retry shortly.",
  ),
};

/** One bearer scheme per token ability: a token of one never opens another surface. */
export const SECURITY_SCHEMES: Record<Ability, { name: string; scheme: unknown }> = {
  api: {
    name: "settingsToken",
    scheme: {
      type: "http",
      scheme: "bearer",
      description: "A settings token (ability `api`): created by `deno task admin token:create`, " +
        "or printed for the demo owner on the first start. Format `<id>|<secret>`.",
    },
  },
  portal: {
    name: "portalToken",
    scheme: {
      type: "http",
      scheme: "bearer",
      description: "A portal token (ability `portal`), returned by `POST /api/portal/login`.",
    },
  },
  agent: {
    name: "agentToken",
    scheme: {
      type: "http",
      scheme: "bearer",
      description: "An agent token (ability `agent`), for the agent inbox app.",
    },
  },
  dashboard: {
    name: "dashboardToken",
    scheme: {
      type: "http",
      scheme: "bearer",
      description: "A dashboard token (ability `dashboard`), returned by " +
        "`POST /api/dashboard/login`, for the owners' dashboard at /dashboard.",
    },
  },
};

/** Surfaces, in reading order, with the path prefix that places an operation in each. */
export const SURFACES: { tag: string; slug: string; prefix: string; description: string }[] = [
  {
    tag: "Integration v1",
    slug: "v1",
    prefix: "/api/v1/",
    description: "The integration API: bots, conversations, knowledge and AI replies for " +
      "servers and automation. Bearer settings token (ability `api`).",
  },
  {
    tag: "Portal",
    slug: "portal",
    prefix: "/api/portal/",
    description: "The white-label portal for a workspace's owners and administrators. Bearer " +
      "portal token from `POST /api/portal/login`; the workspace must have the portal enabled.",
  },
  {
    tag: "Agent",
    slug: "agent",
    prefix: "/api/agent/",
    description: "The agent inbox app: conversations, replies, tags and canned replies. Bearer " +
      "agent token.",
  },
  {
    tag: "Dashboard",
    slug: "dashboard",
    prefix: "/api/dashboard/",
    description: "The owners' dashboard (/dashboard): bots, branding, knowledge, provider keys " +
      "and usage for a workspace's owners and administrators (viewers read). Bearer dashboard " +
      "token from `POST /api/dashboard/login`.",
  },
  {
    tag: "Widget",
    slug: "widget",
    prefix: "/widget/",
    description: "Public endpoints of the embeddable chat widget, addressed by the bot's public " +
      "key. No token: rate limited per IP address. A visitor proves a conversation is theirs " +
      "with the `visitor_id` that opened it.",
  },
  {
    tag: "System",
    slug: "system",
    prefix: "/",
    description: "Service status and probes. No authentication.",
  },
];

/**
 * The surface named by `slug` (`/api/openapi/{slug}.json`, `/api/docs?surface={slug}`), or
 * undefined.
 */
export function surfaceBySlug(slug: string) {
  return SURFACES.find((s) => s.slug === slug);
}

export function surfaceOf(path: string): string {
  return SURFACES.find((s) => path.startsWith(s.prefix))!.tag;
}
