/**
 * What the hardening of issue 16 costs per request, in process (no network
 * noise): the outage guard that wraps every API request when the database is
 * remote (a timer armed and cleared), the `nosniff` header set on every
 * response, and the input rule's walk over a typical body. Each is timed over
 * many iterations against a baseline doing the same work without it.
 */
import { createOutageGuard } from "../db/outage_guard.ts";
import { rejectUnstorableInput } from "../routers/guards/storable_input.ts";

const N = Number(Deno.env.get("BENCH_ITERATIONS") ?? "200000");

const watch = { probe: () => Promise.resolve("answered" as const) };

async function timeAsync(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 10_000; i++) await fn(); // warm-up
  const t0 = performance.now();
  for (let i = 0; i < N; i++) await fn();
  return ((performance.now() - t0) * 1000) / N;
}

function timeSync(fn: () => unknown): number {
  for (let i = 0; i < 10_000; i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < N; i++) fn();
  return ((performance.now() - t0) * 1000) / N;
}

const BODY = {
  message: "How long does shipping to Norway take, and can I track my parcel?",
  visitor_id: "v-8d1f0c2e",
  conversation_id: "3ed15340-87ef-48e4-8aed-657020a50a72",
  meta: { page: "/pricing", referrer: "https://example.com/", visitor: { name: "Ada" } },
};

export async function run(): Promise<string> {
  const work = () => Promise.resolve(new Response("{}"));
  const guard = createOutageGuard(watch);
  const rounds = [];
  for (let r = 0; r < 3; r++) {
    const plain = await timeAsync(() => work());
    const guarded = await timeAsync(() => guard(work(), () => new Response()));
    const bare = timeSync(() => new Response("{}"));
    const sniff = timeSync(() => {
      const res = new Response("{}");
      res.headers.set("x-content-type-options", "nosniff");
      return res;
    });
    const walk = timeSync(() => rejectUnstorableInput(BODY));
    rounds.push({ guard: guarded - plain, plain, sniff: sniff - bare, walk });
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[1]!;
  const f = (x: number) => x.toFixed(2);
  return [
    "## Hardening overhead per request (issue 16)",
    "",
    `In process, ${N.toLocaleString("en-US")} iterations, median of 3 rounds.`,
    "",
    "| Step | µs per request |",
    "|---|---|",
    `| outage guard (DATABASE_URL mode): request registered with the one sweep timer | ${
      f(median(rounds.map((r) => r.guard)))
    } |`,
    `| \`X-Content-Type-Options: nosniff\` set on the response | ${
      f(median(rounds.map((r) => r.sniff)))
    } |`,
    `| input rule (NUL, lone surrogate, depth) over a typical widget stream body | ${
      f(median(rounds.map((r) => r.walk)))
    } |`,
  ].join("\n");
}

if (import.meta.main) console.log(await run());
