/**
 * Domain errors are values with a kind. Domain code throws them; the doors map
 * each kind to one HTTP status in `routers/doors/http_errors.ts`, nowhere else.
 */

export type FieldErrors = Record<string, string[]>;

export class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Missing record or another workspace's record: indistinguishable by design (404). */
export class NotFound extends DomainError {
  constructor(message = "Not found.") {
    super(message);
  }
}

/** Authenticated but not allowed (403). */
export class Forbidden extends DomainError {
  constructor(message = "This action is unauthorized.") {
    super(message);
  }
}

/** Missing, malformed, expired or revoked credentials (401). */
export class Unauthenticated extends DomainError {
  constructor(message = "Unauthenticated.") {
    super(message);
  }
}

/**
 * A right password whose sign-in needs a second step (401): a code from the
 * authenticator app with the challenge in `extra`, which joins the body.
 */
export class SecondStepRequired extends Unauthenticated {
  constructor(message: string, public readonly extra: Record<string, unknown>) {
    super(message);
  }
}

/**
 * A right password in a workspace that requires two-factor sign-in, of a
 * member who has not set it up (403): `extra` holds the enrolment challenge.
 */
export class EnrolmentRequired extends Forbidden {
  constructor(message: string, public readonly extra: Record<string, unknown>) {
    super(message);
  }
}

/** A field-level validation or business-rule refusal (422). `extra` joins the body. */
export class Invalid extends DomainError {
  constructor(
    message: string,
    public readonly errors: FieldErrors = {},
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }

  static field(field: string, reason: string): Invalid {
    return new Invalid(reason, { [field]: [reason] });
  }
}

/** The request conflicts with current state (409). */
export class Conflict extends DomainError {}

/**
 * A keyed request whose first attempt is still being answered elsewhere (409;
 * on the widget stream the `still_answering` event, never plain JSON).
 */
export class StillAnswering extends Conflict {}

/** Monthly quota, rate limit or lockout (429); `retryAfter` in seconds. */
export class QuotaExceeded extends DomainError {
  constructor(message: string, public readonly retryAfter: number | null = null) {
    super(message);
  }
}

/**
 * Why an AI provider call failed. The integrator's and the operator's message
 * names the cause; the widget shows visitors a short text per kind instead.
 */
export type ProviderFailureKind =
  | "no_key" // nothing stored for the workspace and no AI_API_KEY / AI_BASE_URL fallback
  | "key_refused" // the provider answered 401 or 403
  | "unreachable" // DNS, refused connection, time-out, a stream that stalled
  | "rate_limited" // the provider answered 429
  | "provider_error" // the provider answered 5xx
  | "rejected"; // any other 4xx: unknown model, bad request (its own message is kept)

/** The AI provider failed, refused the key, or none is configured (502). */
export class ProviderUnavailable extends DomainError {
  constructor(
    message: string,
    public readonly kind: ProviderFailureKind = "unreachable",
    /** Joins the body, e.g. the conversation that kept the visitor's message. */
    public readonly extra: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** A capability the server was not configured for, e.g. push without VAPID keys (503). */
export class NotConfigured extends DomainError {}

/**
 * A service the action needs (the database) cannot be reached right now, or
 * this instance has no room for the action (every export slot taken); the
 * same request can be retried after `retryAfter` seconds (503).
 */
export class Unavailable extends DomainError {
  constructor(message: string, public readonly retryAfter: number) {
    super(message);
  }
}

/** The action failed on our side and nothing was saved, so a retry is safe (500). */
export class ServerFault extends DomainError {}
