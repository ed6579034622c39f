/** The admin CLI run in process, as its tests call it: exit code and what it printed. */
import { runAdmin } from "../../cli/admin.ts";

export async function cli(argv: string[], env: Record<string, string>) {
  const out: string[] = [];
  const err: string[] = [];
  const { log, error } = console;
  console.log = (s: string) => out.push(s);
  console.error = (s: string) => err.push(s);
  try {
    const code = await runAdmin(argv, env);
    return { code, out: out.join("\n"), err: err.join("\n") };
  } finally {
    console.log = log;
    console.error = error;
  }
}
