/**
 * The one place where errors become HTTP: domain error kinds to statuses, zod
 * issues to `{message, errors}` with the request's field names, and anything
 * unexpected to a bare 500 whose detail goes to the log only.
 */
import { TRPCError } from "@trpc/server";
import {
  Conflict,
  DomainError,
  EnrolmentRequired,
  Forbidden,
  Invalid,
  NotConfigured,
  NotFound,
  ProviderUnavailable,
  QuotaExceeded,
  SecondStepRequired,
  ServerFault,
  Unauthenticated,
  Unavailable,
} from "../../domain/errors.ts";
import { isDatabaseUnreachable } from "../../db/unreachable.ts";
import { KvUnavailable } from "../../kv/kv.ts";
import type { FieldErrors } from "../../domain/errors.ts";

export interface ErrorReply {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function domainErrorStatus(err: DomainError): number {
  if (err instanceof Unauthenticated) return 401;
  if (err instanceof Forbidden) return 403;
  if (err instanceof NotFound) return 404;
  if (err instanceof Conflict) return 409;
  if (err instanceof Invalid) return 422;
  if (err instanceof QuotaExceeded) return 429;
  if (err instanceof ProviderUnavailable) return 502;
  if (err instanceof NotConfigured || err instanceof Unavailable) return 503;
  if (err instanceof ServerFault) return 500;
  return 500;
}

const CODES: Record<number, string> = {
  400: "BAD_REQUEST",
  401: "UNAUTHORIZED",
  403: "FORBIDDEN",
  404: "NOT_FOUND",
  409: "CONFLICT",
  413: "PAYLOAD_TOO_LARGE",
  422: "UNPROCESSABLE_CONTENT",
  429: "TOO_MANY_REQUESTS",
  502: "BAD_GATEWAY",
  503: "SERVICE_UNAVAILABLE",
};

export function trpcCodeForStatus(status: number): string {
  return CODES[status] ?? "INTERNAL_SERVER_ERROR";
}

interface ZodLikeIssue {
  code: string;
  path: PropertyKey[];
  message: string;
  expected?: string;
  origin?: string;
  maximum?: number | bigint;
  minimum?: number | bigint;
  format?: string;
  values?: unknown[];
  keys?: string[];
}

function fieldLabel(field: string): string {
  const last = field.split(".").pop() ?? field;
  return last.replace(/_/g, " ");
}

/** Laravel-style sentences: integrators of such APIs expect these. */
function describeIssue(field: string, issue: ZodLikeIssue): string {
  const label = fieldLabel(field);
  switch (issue.code) {
    case "invalid_type":
      if (/received undefined|received null/.test(issue.message)) {
        return `The ${label} field is required.`;
      }
      return `The ${label} field must be ${article(issue.expected ?? "valid value")}.`;
    case "too_big":
      if (issue.origin === "string") {
        return `The ${label} field must not be greater than ${issue.maximum} characters.`;
      }
      if (issue.origin === "array") {
        return `The ${label} field must not have more than ${issue.maximum} items.`;
      }
      return `The ${label} field must not be greater than ${issue.maximum}.`;
    case "too_small":
      if (issue.origin === "string") {
        return Number(issue.minimum) <= 1
          ? `The ${label} field is required.`
          : `The ${label} field must be at least ${issue.minimum} characters.`;
      }
      if (issue.origin === "array") {
        return `The ${label} field must have at least ${issue.minimum} items.`;
      }
      return `The ${label} field must be at least ${issue.minimum}.`;
    case "invalid_value":
      return `The selected ${label} is invalid.`;
    case "invalid_format":
      return `The ${label} field must be a valid ${issue.format ?? "value"}.`;
    case "invalid_union":
      return `The ${label} field is invalid.`;
    default:
      // Custom refinements carry their own sentence.
      return issue.message;
  }
}

function article(type: string): string {
  if (type === "int") return "an integer";
  if (type === "object") return "an object";
  if (type === "array") return "an array";
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

/** `{message, errors}` from the issues of a failed input parse, or null. */
export function validationBody(err: unknown): { message: string; errors: FieldErrors } | null {
  const cause = err instanceof TRPCError ? err.cause : err;
  const issues = (cause as { issues?: ZodLikeIssue[] } | undefined)?.issues;
  if (!(err instanceof TRPCError) || err.code !== "BAD_REQUEST" || !Array.isArray(issues)) {
    return null;
  }
  const errors: FieldErrors = {};
  for (const issue of issues) {
    const path = issue.path.map(String);
    if (issue.code === "unrecognized_keys") continue; // extra fields are ignored
    const field = path.join(".") || "body";
    (errors[field] ??= []).push(describeIssue(field, issue));
  }
  return { message: summarize(errors), errors };
}

export function summarize(errors: FieldErrors): string {
  const all = Object.values(errors).flat();
  if (all.length === 0) return "The given data was invalid.";
  const more = all.length - 1;
  return more > 0 ? `${all[0]} (and ${more} more error${more > 1 ? "s" : ""})` : all[0]!;
}

/** Seconds a client should wait before retrying while the database is unreachable. */
export const DATABASE_RETRY_AFTER_SECONDS = 5;

export const DATABASE_UNAVAILABLE_MESSAGE =
  "The service is temporarily unavailable (its database cannot be reached). Please retry shortly.";

/** The 503 every door answers while the database cannot be reached. */
export function databaseUnavailable(): Unavailable {
  return new Unavailable(DATABASE_UNAVAILABLE_MESSAGE, DATABASE_RETRY_AFTER_SECONDS);
}

export const KV_RETRY_AFTER_SECONDS = 2;

export const KV_UNAVAILABLE_MESSAGE =
  "The service is temporarily unavailable (its Redis cannot be reached). Please retry shortly.";

/**
 * Find a DomainError in a TRPCError's cause chain; a failure to reach the
 * database or Redis reads as Unavailable (503), since a retry will succeed.
 */
export function domainCause(err: unknown): DomainError | null {
  let cur: unknown = err;
  for (let depth = 0; cur && depth < 5; depth++) {
    if (cur instanceof DomainError) return cur;
    if (cur instanceof KvUnavailable) {
      return new Unavailable(KV_UNAVAILABLE_MESSAGE, KV_RETRY_AFTER_SECONDS);
    }
    cur = (cur as { cause?: unknown }).cause;
  }
  return isDatabaseUnreachable(err) ? databaseUnavailable() : null;
}

/** The second step a sign-in answer asks for (challenge and its kind), or nothing. */
export function signInStepOf(err: DomainError): Record<string, unknown> {
  return err instanceof SecondStepRequired || err instanceof EnrolmentRequired ? err.extra : {};
}

/** Map any thrown value to the wire. `onFault` receives unexpected errors for the log. */
export function toErrorReply(err: unknown, onFault: (err: unknown) => void): ErrorReply {
  const domain = domainCause(err);
  if (domain) {
    const status = domainErrorStatus(domain);
    if (status === 500) onFault(domain);
    const body: Record<string, unknown> = { message: domain.message };
    if (domain instanceof Invalid) {
      Object.assign(body, domain.extra);
      body.errors = domain.errors;
    }
    if (domain instanceof ProviderUnavailable) Object.assign(body, domain.extra);
    Object.assign(body, signInStepOf(domain));
    const headers: Record<string, string> = {};
    if (
      (domain instanceof QuotaExceeded || domain instanceof Unavailable) &&
      domain.retryAfter !== null
    ) {
      headers["Retry-After"] = String(domain.retryAfter);
    }
    return { status, body, headers };
  }
  const validation = validationBody(err);
  if (validation) return { status: 422, body: validation };
  if (err instanceof TRPCError && err.code !== "INTERNAL_SERVER_ERROR") {
    const status = ({
      BAD_REQUEST: 400,
      UNAUTHORIZED: 401,
      FORBIDDEN: 403,
      NOT_FOUND: 404,
      METHOD_NOT_SUPPORTED: 405,
      CONFLICT: 409,
      TOO_MANY_REQUESTS: 429,
    } as Record<string, number>)[err.code] ?? 500;
    if (status !== 500) return { status, body: { message: err.message } };
  }
  onFault(err);
  return { status: 500, body: { message: "Server error." } };
}
