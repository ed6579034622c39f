/**
 * A lean runner for a tRPC procedure's middleware chain, used by the REST
 * door. It calls the same middlewares (our guards, the resolver) with the
 * same options and ctx merge as tRPC's own caller, and answers failures as
 * `{ok: false, error}` the same way. Why: tRPC's caller copies its options
 * through a Babel spread helper at every step (about 5 µs per middleware), and
 * its zod input/output steps do the same; on a trivial procedure that was
 * most of the door's cost (docs/BENCHMARKS.md). The /trpc door keeps tRPC's
 * own caller, so both paths stay covered by the same tests.
 */
import { TRPCError } from "@trpc/server";
import type { Meta } from "../trpc.ts";

export type ProcedureType = "query" | "mutation";

/** What tRPC hands a middleware, and what `next()` resolves to. */
interface MiddlewareOpts {
  ctx: unknown;
  type: ProcedureType;
  path: string;
  input: unknown;
  getRawInput: () => Promise<unknown>;
  meta: Meta | undefined;
  signal: AbortSignal | undefined;
  next(nextOpts?: NextOpts): Promise<MiddlewareResult>;
}

interface NextOpts {
  ctx?: Record<string, unknown>;
  input?: unknown;
  getRawInput?: () => Promise<unknown>;
}

type MiddlewareResult = { ok: true; data: unknown } | { ok: false; error: unknown };
type Middleware = ((opts: MiddlewareOpts) => Promise<MiddlewareResult>) & {
  _type?: string;
  [SKIP_ON_REST]?: (meta: Meta | undefined) => boolean;
};

const SKIP_ON_REST = Symbol("skipOnRestDoor");

/**
 * Mark a middleware the REST door may leave out of a procedure's chain when
 * `unneeded(meta)` holds (a rate-limit step on a route without a limit, an
 * input default the door never needs). It still runs on the /trpc door.
 */
export function skipOnRestDoor<T extends { _middlewares: unknown[] }>(
  builder: T,
  unneeded: (meta: Meta | undefined) => boolean,
): T {
  for (const fn of builder._middlewares) {
    (fn as Middleware)[SKIP_ON_REST] = unneeded;
  }
  return builder;
}

/** The parts of a zod schema we call; anything else keeps tRPC's own step. */
interface SafeParser {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: unknown };
}

/** The internals of a built procedure that the runner reads. */
export interface ProcedureDef {
  meta?: Meta;
  type: ProcedureType;
  middlewares: Middleware[];
  inputs: unknown[];
  output?: unknown;
}

/** A procedure ready to run many times: its chain resolved once. */
export interface CompiledProcedure {
  name: string;
  type: ProcedureType;
  meta: Meta | undefined;
  middlewares: Middleware[];
}

function isSafeParser(schema: unknown): schema is SafeParser {
  return typeof (schema as SafeParser | undefined)?.safeParse === "function";
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Sync zod parse; a schema with async refinements throws on `safeParse`, and
 * then tRPC's own step (which falls back to `parseAsync`) is kept.
 */
function inputStep(schema: SafeParser, original: Middleware): Middleware {
  return async (opts) => {
    const raw = await opts.getRawInput();
    let parsed;
    try {
      parsed = schema.safeParse(raw);
    } catch {
      return original(opts);
    }
    if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", cause: parsed.error });
    const input = isPlainObject(opts.input) && isPlainObject(parsed.data)
      ? { ...opts.input, ...parsed.data }
      : parsed.data;
    return opts.next({ input });
  };
}

function outputStep(schema: SafeParser, original: Middleware): Middleware {
  return async (opts) => {
    const result = await opts.next();
    if (!result.ok) return result;
    let parsed;
    try {
      parsed = schema.safeParse(result.data);
    } catch {
      return original({ ...opts, next: () => Promise.resolve(result) });
    }
    if (!parsed.success) {
      throw new TRPCError({
        code: "INTERNAL_SERVER_ERROR",
        message: "Output validation failed",
        cause: parsed.error,
      });
    }
    return { ok: true, data: parsed.data };
  };
}

/**
 * Resolve a procedure's chain once, swapping tRPC's zod steps for lean ones
 * (a schema that cannot be parsed synchronously keeps tRPC's own step).
 */
export function compileProcedure(name: string, def: ProcedureDef): CompiledProcedure {
  const inputMiddlewares = def.middlewares.filter((m) => m._type === "input");
  const swapInputs = inputMiddlewares.length === def.inputs.length &&
    def.inputs.every(isSafeParser);
  let inputIndex = 0;
  // tRPC's "errors" step only shapes the /trpc envelope; REST errors are
  // mapped by the door from the same error objects, so it is left out here.
  const needed = (m: Middleware) => m._type !== "errors" && !m[SKIP_ON_REST]?.(def.meta);
  const middlewares = def.middlewares.filter(needed).map((m): Middleware => {
    if (m._type === "input" && swapInputs) {
      return inputStep(def.inputs[inputIndex++] as SafeParser, m);
    }
    if (m._type === "output" && isSafeParser(def.output)) return outputStep(def.output, m);
    return m;
  });
  return { name, type: def.type, meta: def.meta, middlewares };
}

function asTrpcError(cause: unknown): TRPCError {
  if (cause instanceof TRPCError) return cause;
  return new TRPCError({ code: "INTERNAL_SERVER_ERROR", cause });
}

/** Run the chain with `input` as the raw input; throws the failure like tRPC's caller. */
export async function invokeProcedure(
  proc: CompiledProcedure,
  ctx: unknown,
  input: unknown,
): Promise<unknown> {
  const { middlewares, meta, type, name } = proc;
  const step = async (
    index: number,
    stepCtx: unknown,
    stepInput: unknown,
    getRawInput: () => Promise<unknown>,
  ): Promise<MiddlewareResult> => {
    try {
      return await middlewares[index]!({
        ctx: stepCtx,
        type,
        path: name,
        input: stepInput,
        getRawInput,
        meta,
        signal: undefined,
        next: (next) =>
          step(
            index + 1,
            next?.ctx ? { ...(stepCtx as Record<string, unknown>), ...next.ctx } : stepCtx,
            next && "input" in next ? next.input : stepInput,
            next?.getRawInput ?? getRawInput,
          ),
      });
    } catch (cause) {
      return { ok: false, error: asTrpcError(cause) };
    }
  };
  const result = await step(0, ctx, undefined, () => Promise.resolve(input));
  if (!result.ok) throw result.error;
  return result.data;
}
