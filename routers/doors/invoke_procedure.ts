/**
 * A lean runner for a tRPC procedure's middleware chain, used by the REST
 * door. It calls the same middlewares (our guards, the resolver) with the
 * same options and ctx merge as tRPC's own caller, and answers failures as
 * `{ok: false, error}` the same way. Why: tRPC's caller copies its options
 * through a Babel spread helper at every step (about 5 µs per middleware), and
 * its zod input/output steps do the same; on a trivial procedure that was
 * most of the door's cost (docs/BENCHMARKS.md). The /trpc door keeps tRPC's
 * own caller, so both paths stay covered by the same tests.
 *
 * The chain is compiled once per procedure into steps. Zod input and output
 * steps, and guards that declare a synchronous check for this door, run
 * inline in one loop: each async layer (a promise, an await) costs a few
 * hundred nanoseconds, and a trivial procedure had ten of them.
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

/** A synchronous equivalent of a guard, given the raw input: throws to refuse. */
export type RestDoorCheck = (ctx: unknown, rawInput: unknown, meta: Meta | undefined) => void;

type Middleware = ((opts: MiddlewareOpts) => Promise<MiddlewareResult>) & {
  _type?: string;
  [SKIP_ON_REST]?: (meta: Meta | undefined) => boolean;
  [CHECK_ON_REST]?: RestDoorCheck;
};

const SKIP_ON_REST = Symbol("skipOnRestDoor");
const CHECK_ON_REST = Symbol("checkOnRestDoor");

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

/**
 * Give a middleware a synchronous equivalent the REST door runs inline at the
 * same place in the chain (a guard that only inspects the input). It must
 * refuse exactly what the middleware refuses; the /trpc door runs the
 * middleware itself.
 */
export function checkOnRestDoor<T extends { _middlewares: unknown[] }>(
  builder: T,
  check: RestDoorCheck,
): T {
  for (const fn of builder._middlewares) {
    (fn as Middleware)[CHECK_ON_REST] = check;
  }
  return builder;
}

/** The parts of a zod schema we call; anything else keeps tRPC's own step. */
interface SafeParser {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false; error: unknown };
}

type Resolver = (opts: MiddlewareOpts) => unknown;

/** The internals of a built procedure that the runner reads. */
export interface ProcedureDef {
  meta?: Meta;
  type: ProcedureType;
  middlewares: Middleware[];
  inputs: unknown[];
  output?: unknown;
  resolver?: Resolver;
}

type Step =
  | { kind: "check"; check: RestDoorCheck }
  | { kind: "input"; schema: SafeParser; original: Middleware }
  | { kind: "output"; schema: SafeParser; original: Middleware }
  | { kind: "resolve"; resolver: Resolver }
  | { kind: "middleware"; fn: Middleware };

/** A procedure ready to run many times: its chain resolved once. */
export interface CompiledProcedure {
  name: string;
  type: ProcedureType;
  meta: Meta | undefined;
  steps: Step[];
}

function isSafeParser(schema: unknown): schema is SafeParser {
  return typeof (schema as SafeParser | undefined)?.safeParse === "function";
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

/**
 * Resolve a procedure's chain once, swapping tRPC's zod steps for lean ones
 * (a schema that cannot be parsed synchronously keeps tRPC's own step) and
 * the resolver's wrapper for a direct call.
 */
export function compileProcedure(name: string, def: ProcedureDef): CompiledProcedure {
  const inputMiddlewares = def.middlewares.filter((m) => m._type === "input");
  const swapInputs = inputMiddlewares.length === def.inputs.length &&
    def.inputs.every(isSafeParser);
  let inputIndex = 0;
  // tRPC's "errors" step only shapes the /trpc envelope; REST errors are
  // mapped by the door from the same error objects, so it is left out here.
  const needed = (m: Middleware) => m._type !== "errors" && !m[SKIP_ON_REST]?.(def.meta);
  const last = def.middlewares[def.middlewares.length - 1];
  const steps = def.middlewares.filter(needed).map((m): Step => {
    const check = m[CHECK_ON_REST];
    if (check) return { kind: "check", check };
    if (m._type === "input" && swapInputs) {
      return { kind: "input", schema: def.inputs[inputIndex++] as SafeParser, original: m };
    }
    if (m._type === "output" && isSafeParser(def.output)) {
      return { kind: "output", schema: def.output, original: m };
    }
    // tRPC's last middleware only awaits the resolver and wraps its value.
    if (m === last && def.resolver) return { kind: "resolve", resolver: def.resolver };
    return { kind: "middleware", fn: m };
  });
  return { name, type: def.type, meta: def.meta, steps };
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
  const result = await runProcedure(proc, ctx, input);
  if (!result.ok) throw result.error;
  return result.data;
}

/** What a procedure's chain resolved to: `{ok, data}` or `{ok: false, error}`. */
export type ProcedureResult = MiddlewareResult;

/**
 * Run the chain, synchronously for as long as every step answers at once (zod
 * steps, inline checks, a resolver returning a value): a trivial procedure
 * then costs no promise at all. The first step that returns a promise (a
 * middleware, an async resolver) makes the result a promise.
 */
export function runProcedure(
  proc: CompiledProcedure,
  ctx: unknown,
  input: unknown,
): ProcedureResult | Promise<ProcedureResult> {
  return new Run(proc, input).from(0, ctx, undefined, null);
}

const failed = (cause: unknown): MiddlewareResult => ({ ok: false, error: asTrpcError(cause) });

/** One invocation: the compiled steps, and the raw input they all see. */
class Run {
  constructor(private proc: CompiledProcedure, private rawInput: unknown) {}

  /**
   * Run the steps from `index`. `getRawInput` is null while the raw input is
   * the door's own value; a middleware may replace it through `next()`. Never
   * rejects: a failure is `{ok: false}`, as in tRPC's caller.
   */
  from(
    index: number,
    ctx: unknown,
    input: unknown,
    getRawInput: (() => Promise<unknown>) | null,
  ): MiddlewareResult | Promise<MiddlewareResult> {
    // A replaced raw input is only readable asynchronously.
    if (getRawInput) return this.fromAsync(index, ctx, input, getRawInput);
    const { steps, meta } = this.proc;
    try {
      for (;;) {
        const step = steps[index]!;
        switch (step.kind) {
          case "check":
            step.check(ctx, this.rawInput, meta);
            index++;
            continue;
          case "input": {
            let parsed;
            try {
              parsed = step.schema.safeParse(this.rawInput);
            } catch {
              // Async refinements: tRPC's own step, which parses asynchronously.
              return settle(step.original(this.opts(index, ctx, input, null)));
            }
            if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", cause: parsed.error });
            input = isPlainObject(input) && isPlainObject(parsed.data)
              ? { ...input, ...parsed.data }
              : parsed.data;
            index++;
            continue;
          }
          case "output": {
            const result = this.from(index + 1, ctx, input, null);
            return result instanceof Promise
              ? result.then((r) => this.output(step, index, ctx, input, null, r), failed)
              : this.output(step, index, ctx, input, null, result);
          }
          case "resolve": {
            const value = step.resolver(this.opts(index, ctx, input, null));
            return value instanceof Promise
              ? value.then((data) => ({ ok: true, data }), failed)
              : { ok: true, data: value };
          }
          case "middleware":
            return settle(step.fn(this.opts(index, ctx, input, null)));
        }
      }
    } catch (cause) {
      return failed(cause);
    }
  }

  /** `from` once a middleware has replaced the raw input (read through a promise). */
  private async fromAsync(
    index: number,
    ctx: unknown,
    input: unknown,
    getRawInput: () => Promise<unknown>,
  ): Promise<MiddlewareResult> {
    const { steps, meta } = this.proc;
    try {
      for (;;) {
        const step = steps[index]!;
        switch (step.kind) {
          case "check":
            step.check(ctx, await getRawInput(), meta);
            index++;
            continue;
          case "input": {
            const raw = await getRawInput();
            let parsed;
            try {
              parsed = step.schema.safeParse(raw);
            } catch {
              return await step.original(this.opts(index, ctx, input, getRawInput));
            }
            if (!parsed.success) throw new TRPCError({ code: "BAD_REQUEST", cause: parsed.error });
            input = isPlainObject(input) && isPlainObject(parsed.data)
              ? { ...input, ...parsed.data }
              : parsed.data;
            index++;
            continue;
          }
          case "output": {
            const result = await this.from(index + 1, ctx, input, getRawInput);
            return await this.output(step, index, ctx, input, getRawInput, result);
          }
          case "resolve": {
            const value = step.resolver(this.opts(index, ctx, input, getRawInput));
            return { ok: true, data: value instanceof Promise ? await value : value };
          }
          case "middleware":
            return await step.fn(this.opts(index, ctx, input, getRawInput));
        }
      }
    } catch (cause) {
      return failed(cause);
    }
  }

  /** The output step: parse what the steps below returned. */
  private output(
    step: Extract<Step, { kind: "output" }>,
    index: number,
    ctx: unknown,
    input: unknown,
    getRawInput: (() => Promise<unknown>) | null,
    result: MiddlewareResult,
  ): MiddlewareResult | Promise<MiddlewareResult> {
    if (!result.ok) return result;
    let parsed;
    try {
      parsed = step.schema.safeParse(result.data);
    } catch {
      const opts = this.opts(index, ctx, input, getRawInput);
      return settle(step.original({ ...opts, next: () => Promise.resolve(result) }));
    }
    if (!parsed.success) {
      return failed(
        new TRPCError({
          code: "INTERNAL_SERVER_ERROR",
          message: "Output validation failed",
          cause: parsed.error,
        }),
      );
    }
    return { ok: true, data: parsed.data };
  }

  /** The options tRPC hands the middleware at `index`, with its `next`. */
  private opts(
    index: number,
    ctx: unknown,
    input: unknown,
    getRawInput: (() => Promise<unknown>) | null,
  ): MiddlewareOpts {
    const { type, name, meta } = this.proc;
    const rawInput = this.rawInput;
    return {
      ctx,
      type,
      path: name,
      input,
      getRawInput: getRawInput ?? (() => Promise.resolve(rawInput)),
      meta,
      signal: undefined,
      next: (next) =>
        Promise.resolve(this.from(
          index + 1,
          next?.ctx ? { ...(ctx as Record<string, unknown>), ...next.ctx } : ctx,
          next && "input" in next ? next.input : input,
          next?.getRawInput ?? getRawInput,
        )),
    };
  }
}

/** A middleware's promise as a result that never rejects (a throw is `{ok: false}`). */
function settle(work: Promise<MiddlewareResult>): Promise<MiddlewareResult> {
  return Promise.resolve(work).then(undefined, failed);
}
