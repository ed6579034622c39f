/**
 * widget.js: its size (minified and gzipped, against the 25 KB budget) and
 * what bundling on first request costs: in a fresh process (the first
 * request after a server start, esbuild included) and warm (in process).
 */
import { bundleWidget } from "../widget/bundle.ts";
import { gzip, makeAsset } from "../routers/doors/static_files.ts";

const ROOT = new URL("../", import.meta.url).pathname;
const COLD_RUNS = 3;
const WARM_RUNS = 10;
const BUDGET = 25 * 1024;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

/** First bundle plus hashing and gzip in a new Deno process, as the server's first request. */
async function coldMs(): Promise<number> {
  const code = `
    import { bundleWidget } from "./widget/bundle.ts";
    import { makeAsset } from "./routers/doors/static_files.ts";
    const t = performance.now();
    await makeAsset(await bundleWidget(), "text/javascript", "public");
    console.log(performance.now() - t);`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--unstable-bundle", code],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) throw new Error(new TextDecoder().decode(out.stderr));
  return Number(new TextDecoder().decode(out.stdout).trim());
}

export async function run(): Promise<string> {
  const cold: number[] = [];
  for (let i = 0; i < COLD_RUNS; i++) cold.push(await coldMs());
  const warm: number[] = [];
  let script = "";
  for (let i = 0; i < WARM_RUNS; i++) {
    const t = performance.now();
    script = await bundleWidget();
    await makeAsset(script, "text/javascript", "public");
    warm.push(performance.now() - t);
  }
  const bytes = new TextEncoder().encode(script);
  const gz = await gzip(bytes);
  const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`;
  return [
    "### widget.js",
    "",
    "| Measure | Value |",
    "|---|---|",
    `| Minified size | ${bytes.byteLength} B (${kb(bytes.byteLength)}) |`,
    `| Gzipped size | ${gz.byteLength} B (${kb(gz.byteLength)}; budget ${kb(BUDGET)}, ${
      Math.round((gz.byteLength / BUDGET) * 100)
    } % used) |`,
    `| First request after start (bundle + SHA-256 + gzip, fresh process), median of ${COLD_RUNS} | ${
      median(cold).toFixed(0)
    } ms |`,
    `| Rebundle in a warm process, median of ${WARM_RUNS} | ${median(warm).toFixed(0)} ms |`,
    "",
    "Later requests are served from memory (200 with the gzip body, or 304 on a matching ETag).",
  ].join("\n");
}

if (import.meta.main) console.log(await run());
