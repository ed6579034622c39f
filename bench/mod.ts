/**
 * Benchmark runner: imports every `bench/*_bench.ts` module and runs its
 * exported `run(): Promise<string>` in turn, printing each Markdown section.
 * Names on the command line (`deno task bench rest_door`) run only those.
 */

interface BenchModule {
  run(): Promise<string>;
}

const here = new URL("./", import.meta.url);

async function listBenches(): Promise<string[]> {
  const names: string[] = [];
  for await (const entry of Deno.readDir(here)) {
    const m = /^(.+)_bench\.ts$/.exec(entry.name);
    if (entry.isFile && m) names.push(m[1]!);
  }
  return names.sort();
}

if (import.meta.main) {
  const all = await listBenches();
  const wanted = Deno.args.map((a) => a.replace(/_bench(\.ts)?$/, ""));
  const unknown = wanted.filter((w) => !all.includes(w));
  if (unknown.length) {
    console.error(`Unknown benchmark: ${unknown.join(", ")}. Available: ${all.join(", ")}`);
    Deno.exit(1);
  }
  const selected = wanted.length ? wanted : all;
  let failed = false;
  for (const name of selected) {
    console.error(`== ${name} ==`);
    try {
      const mod = await import(new URL(`./${name}_bench.ts`, here).href) as BenchModule;
      console.log((await mod.run()).trimEnd() + "\n");
    } catch (err) {
      failed = true;
      console.error(`${name} failed: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (failed) Deno.exit(1);
}
