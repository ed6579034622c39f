/**
 * The idempotency key of a retry-safe visitor message: `client_id` in the
 * body (every door, `/trpc` included, like an agent reply's) or the
 * `Idempotency-Key` header (the IETF httpapi draft's name, as Stripe uses it;
 * a structured-field string in quotes is read too). Both given must agree.
 */
import { Invalid } from "../../domain/errors.ts";
import { chars } from "./text.ts";

export const CLIENT_ID_MAX = 64;

export const clientIdField = chars(CLIENT_ID_MAX).refine(
  (s) => s.trim().length > 0,
  "The client id field must not be empty or only whitespace.",
);

const HEADER = "Idempotency-Key";

/** The request's key, or undefined when it sends none; Invalid (422) when malformed or at odds. */
export function idempotencyKey(req: Request, clientId: string | undefined): string | undefined {
  const raw = req.headers.get(HEADER);
  if (raw === null) return clientId;
  const quoted = /^"(.*)"$/.exec(raw.trim());
  const key = quoted ? quoted[1]! : raw.trim();
  if (!key || key.length > CLIENT_ID_MAX) {
    const message = `The ${HEADER} header must hold 1 to ${CLIENT_ID_MAX} characters.`;
    throw new Invalid(message, { [HEADER]: [message] });
  }
  if (clientId !== undefined && clientId !== key) {
    const message = `The client id field must match the ${HEADER} header when both are sent.`;
    throw new Invalid(message, { client_id: [message] });
  }
  return key;
}
