/**
 * The tRPC instance and the procedure builders every router uses:
 * `publicProcedure` → `authedProcedure(ability)`, with permission and rate
 * limit declared in meta and enforced here, once.
 */
import { initTRPC, TRPCError } from "@trpc/server";
import type { TRPC_ERROR_CODE_KEY } from "@trpc/server/rpc";
import { authenticate } from "../domain/auth/tokens.ts";
import type { Ability } from "../db/tokens.ts";
import { can, type Permission } from "../domain/auth/permissions.ts";
import { DomainError, Forbidden, Invalid } from "../domain/errors.ts";
import type { RequestContext } from "./context.ts";
import type { OperationMeta } from "./openapi/operation_meta.ts";
import { enforceRateLimit, type RateLimitSpec } from "./guards/rate_limit.ts";
import { rejectUnstorableInput } from "./guards/storable_input.ts";
import {
  domainCause,
  domainErrorStatus,
  signInStepOf,
  trpcCodeForStatus,
  validationBody,
} from "./doors/http_errors.ts";
import { checkOnRestDoor, skipOnRestDoor } from "./doors/invoke_procedure.ts";
import { throwIfUnread } from "./doors/door_input.ts";

export interface Meta {
  /** The REST route and its OpenAPI description (routers/openapi/operation_meta.ts). */
  openapi?: OperationMeta;
  /** Role permission required beyond the token's ability. */
  permission?: Permission;
  rateLimit?: RateLimitSpec;
  /**
   * Set by `authedProcedure`, never by hand: the token ability the procedure
   * requires. Absent: a public procedure. The OpenAPI document derives its
   * security and its 401/403 from it. Several: any of them opens it.
   */
  auth?: Ability | readonly Ability[];
  /** Largest request body this route reads, where it needs more than DEFAULT_BODY_LIMIT. */
  maxBodyBytes?: number;
}

const t = initTRPC.meta<Meta>().context<RequestContext>().create({
  isDev: false,
  // The /trpc door speaks tRPC's envelope, but with our message and field
  // errors and never a stack trace.
  errorFormatter({ shape, error, ctx }) {
    const cause = error.cause;
    const status = cause instanceof DomainError ? domainErrorStatus(cause) : shape.data.httpStatus;
    const validation = validationBody(error);
    const message = validation?.message ??
      (cause instanceof SyntaxError
        ? malformedInputMessage(ctx?.req.method)
        : status >= 500 && !(cause instanceof DomainError)
        ? "Server error."
        : shape.message);
    const errors = validation?.errors ?? (cause instanceof Invalid ? cause.errors : undefined);
    return {
      message,
      code: shape.code,
      data: {
        code: shape.data.code,
        httpStatus: validation ? 422 : status,
        path: shape.data.path,
        ...(errors ? { errors } : {}),
        // A sign-in's second step: its challenge, as the REST body carries it.
        ...(cause instanceof DomainError ? signInStepOf(cause) : {}),
      },
    };
  },
});

/**
 * Our sentence for input tRPC could not parse, never the JSON parser's own
 * text (which echoes the input back): the REST door says the same.
 */
function malformedInputMessage(method: string | undefined): string {
  return method === "GET"
    ? "The input query parameter is not valid JSON."
    : "The request body is not valid JSON.";
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/**
 * Domain errors leave every procedure as a TRPCError of the matching code, so
 * both doors answer 404 for a NotFound. In tRPC v11 a failure below reaches a
 * middleware as `result.ok === false`, not as a throw. The REST door maps a
 * DomainError found anywhere in an error's cause chain itself
 * (`toErrorReply`), so it leaves this step out.
 */
const domainErrors = skipOnRestDoor(
  t.middleware(async ({ next }) => {
    const result = await next();
    const cause = result.ok ? null : domainCause(result.error);
    if (!result.ok && cause) {
      throw new TRPCError({
        code: trpcCodeForStatus(domainErrorStatus(cause)) as TRPC_ERROR_CODE_KEY,
        message: cause.message,
        cause,
      });
    }
    return result;
  }),
  () => true,
);

const rateLimited = skipOnRestDoor(
  t.middleware(async ({ ctx, meta, next }) => {
    const spec = meta?.rateLimit;
    if (spec) {
      const subject = spec.by === "user" && ctx.auth ? `u${ctx.auth.user.id}` : ctx.ip;
      await enforceRateLimit(ctx.deps.kv, spec, subject, ctx.response.headers);
    }
    return next();
  }),
  (meta) => !meta?.rateLimit,
);

/**
 * The /trpc call's raw input as the REST door gives it. A call without
 * `input` (a client's `.query()` with no argument) arrives as undefined;
 * procedures without parameters declare `z.object({})`, so an absent input is
 * read as `{}`, as the REST door always does. A body the door could not use
 * stands in for the input as its UnreadBody, as on REST (doors/door_input.ts).
 */
const trpcRawInput = skipOnRestDoor(
  t.middleware(({ ctx, getRawInput, next }) =>
    next({ getRawInput: async () => ctx.unreadBody ?? (await getRawInput()) ?? {} })
  ),
  () => true, // the REST door always passes an object, or its UnreadBody
);

/**
 * Text the database cannot store as sent (a NUL, a lone surrogate) and
 * objects nested past the bound are a 422 here, not a database fault (a 500)
 * later: guards/storable_input.ts. It is the first step that reads the input,
 * so a body a door could not use fails here (400, 413, /trpc's 415), after the
 * authentication and rate limit, on both doors (doors/door_input.ts).
 */
const storableInput = checkOnRestDoor(
  t.middleware(async ({ getRawInput, next }) => {
    const rawInput = await getRawInput();
    throwIfUnread(rawInput);
    rejectUnstorableInput(rawInput);
    return next();
  }),
  (_ctx, rawInput) => {
    throwIfUnread(rawInput);
    rejectUnstorableInput(rawInput);
  },
);

const base = t.procedure.use(domainErrors).use(trpcRawInput);

export const publicProcedure = base.use(rateLimited).use(storableInput);

/** Procedures that need a bearer token with `ability` (or one of several); role permission from meta. */
export function authedProcedure(ability: Ability | readonly Ability[]) {
  return base.use(async ({ ctx, meta, next }) => {
    const auth = await authenticate(
      ctx.deps.sql,
      ctx.req.headers.get("authorization"),
      ability,
      ctx.now,
      ctx.ip,
    );
    ctx.auth = auth;
    if (meta?.permission && !can(auth.user.role, meta.permission)) {
      throw new Forbidden(`Your role does not have the ${meta.permission} permission.`);
    }
    return next({ ctx: { ...ctx, auth } });
  }).use(rateLimited).use(storableInput).meta({ auth: ability });
}

export const apiProcedure = authedProcedure("api");
/**
 * A person's own account (profile, password, sessions: docs/accounts.md),
 * under /api/dashboard/account but opened by any sign-in token of theirs:
 * the dashboard's, the inbox's or an agent app's, or a portal token. Not by
 * an API token, which is not a session.
 */
export const accountProcedure = authedProcedure(["dashboard", "agent", "portal"]);
/** A portal token opens the portal only while its workspace still has the portal enabled. */
export const portalProcedure = authedProcedure("portal").use(({ ctx, next }) => {
  if (!ctx.auth!.workspace.portalEnabled) {
    throw new Forbidden("The white-label portal is not enabled for this workspace.");
  }
  return next();
});
export const agentProcedure = authedProcedure("agent");
/**
 * The owners' dashboard (/api/dashboard, docs/dashboard.md): a dashboard token
 * of an owner, administrator or viewer. A token of an agent (only an operator
 * or a seed file can make one) opens nothing here; changes need the
 * permission each procedure declares, so a viewer reads and changes nothing.
 */
export const dashboardProcedure = authedProcedure("dashboard").use(({ ctx, next }) => {
  if (!can(ctx.auth!.user.role, "view-dashboard")) {
    throw new Forbidden(
      "The dashboard is for owners, administrators and viewers. Agents work in the inbox at /inbox.",
    );
  }
  return next();
});
