/**
 * A procedure's input as a door assembles it from the request's parts: the
 * query, then the body, then the path parameters, which win. The REST door
 * and the widget stream both build it here, and the one input rule
 * (guards/storable_input.ts) then sees all of it, path parameters included,
 * as the `/trpc` door's input always was: a NUL in `{key}` is the same 422
 * on every door, never a database fault.
 */
export function doorInput(
  query: Record<string, unknown>,
  body: Record<string, unknown> | null,
  params: Record<string, string>,
): Record<string, unknown> {
  return { ...query, ...body, ...params };
}

/**
 * A body a door could not use, standing in for the input: on REST one that
 * is not JSON, not an object or too large; on /trpc one too large or of a
 * media type tRPC does not read (`text/plain`, none; the door puts it in the
 * context, routers/trpc.ts). The error is raised at the first guard that
 * reads the input, so the guards before it (authentication, the rate limit)
 * run on both doors alike: a malformed login is counted and answered with
 * the rate-limit headers.
 */
export class UnreadBody {
  constructor(readonly error: Error) {}
}

/** Throw the body's read error if the input is an UnreadBody. */
export function throwIfUnread(rawInput: unknown): void {
  if (rawInput instanceof UnreadBody) throw rawInput.error;
}
