/**
 * A base commit's source beside the work tree, for A/B benchmarks that run
 * the base and the change in one process, side by side: `git archive` of the
 * named folders into `data/ab-base/<sha>/` (ignored by git, reused by later
 * runs). Modules imported from there resolve npm packages through this
 * repository's import map, so the two sides share the same dependencies and
 * differ only in their own code.
 */

const root = new URL("../", import.meta.url);

/** What a base commit's server needs to run (tests, benches and docs stay out). */
export const SERVER_SOURCES = [
  "main.ts",
  "app",
  "cli",
  "clients",
  "dashboard",
  "db",
  "domain",
  "inbox",
  "kv",
  "routers",
  "widget",
];

async function git(args: string[]): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd: root, stdout: "piped", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/** The base tree's root URL, with `folders` of `commit` extracted under it. */
export async function baseTree(commit: string, folders: string[]): Promise<URL> {
  const sha = await git(["rev-parse", "--verify", `${commit}^{commit}`]);
  const dir = new URL(`data/ab-base/${sha}/`, root);
  const done = new URL(".complete", dir);
  try {
    await Deno.stat(done);
    return dir;
  } catch {
    // not extracted yet
  }
  await Deno.mkdir(dir, { recursive: true });
  const archive = new Deno.Command("git", {
    args: ["archive", sha, ...folders],
    cwd: root,
    stdout: "piped",
  }).spawn();
  const tar = new Deno.Command("tar", { args: ["-x", "-C", dir.pathname], stdin: "piped" })
    .spawn();
  await archive.stdout.pipeTo(tar.stdin);
  const [a, t] = await Promise.all([archive.status, tar.status]);
  if (!a.success || !t.success) throw new Error(`could not extract ${sha} into ${dir.pathname}`);
  await Deno.writeTextFile(done, `${sha}\n`);
  return dir;
}

/** The abbreviated name of `commit`, for reports. */
export async function shortCommit(commit: string): Promise<string> {
  return await git(["rev-parse", "--short", `${commit}^{commit}`]);
}
