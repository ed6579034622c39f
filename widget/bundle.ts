/**
 * widget.js is built from `widget/src/main.ts` by Deno's bundler (esbuild
 * underneath) on the first request and kept in memory, so the served script
 * can never be staler than the source beside it. In-process bundling needs
 * the `bundle` unstable flag (set in deno.json); without it the `deno bundle`
 * subcommand is run instead.
 */

const ENTRY = new URL("./src/main.ts", import.meta.url);

interface BundleResult {
  success: boolean;
  errors: { text: string }[];
  outputFiles?: { text(): string }[];
}
type DenoBundle = (options: {
  entrypoints: string[];
  write: false;
  minify: boolean;
  platform: "browser";
  format: "iife";
}) => Promise<BundleResult>;

const SCREEN_ENTRY = new URL("./screen/recorder.ts", import.meta.url);

/** widget-screen.js: the page recorder (rrweb), loaded by the widget only after consent. */
export function bundleScreenRecorder(): Promise<string> {
  return bundleBrowserScript(SCREEN_ENTRY, "widget-screen.js");
}

/** The minified browser script, as text. */
export function bundleWidget(): Promise<string> {
  return bundleBrowserScript(ENTRY, "widget.js");
}

/** Bundles one browser entry point (an IIFE, minified); `name` only labels errors. */
export async function bundleBrowserScript(entryUrl: URL, name: string): Promise<string> {
  const entry = entryUrl.protocol === "file:"
    ? decodeURIComponent(entryUrl.pathname)
    : entryUrl.href;
  const bundle = (Deno as unknown as { bundle?: DenoBundle }).bundle;
  if (typeof bundle === "function") {
    const result = await bundle({
      entrypoints: [entry],
      write: false,
      minify: true,
      platform: "browser",
      format: "iife",
    });
    const text = result.outputFiles?.[0]?.text();
    if (!result.success || text === undefined) {
      throw new Error(`Cannot bundle ${name}: ${result.errors.map((e) => e.text).join("; ")}`);
    }
    return text;
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["bundle", "--quiet", "--minify", "--platform", "browser", "--format", "iife", entry],
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`Cannot bundle ${name}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout);
}
