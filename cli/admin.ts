/**
 * The admin CLI (`deno task admin <command> [options]`, or the binary from
 * `deno task compile`): one object at a time, JSON on stdout, and on failure
 * `{"error", "errors"?}` on stderr with exit code 1. See docs/admin-cli.md.
 */
import { ConfigError } from "../app/config.ts";
import { DomainError, Invalid } from "../domain/errors.ts";
import { EmbeddedDatabaseBusy } from "../db/embedded.ts";
import { parseArgs } from "./args.ts";
import type { Command } from "./commands/command.ts";
import { workspaceCommands } from "./commands/workspace.ts";
import { userCommands } from "./commands/user.ts";
import { tokenCommands } from "./commands/token.ts";
import { contentCommands } from "./commands/content.ts";
import { seedCommands } from "./commands/seed.ts";
import { keyCommands } from "./commands/key.ts";
import { listCommands } from "./commands/list.ts";
import { integrationCommands } from "./commands/integration.ts";
import { webhookCommands } from "./commands/webhook.ts";
import { openAdmin } from "./open_admin.ts";

export const COMMANDS: Command[] = [
  ...workspaceCommands,
  ...userCommands,
  ...tokenCommands,
  ...contentCommands,
  ...seedCommands,
  ...keyCommands,
  ...listCommands,
  ...integrationCommands,
  ...webhookCommands,
];

export function helpText(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "Parley admin CLI: deno task admin <command> [options]",
    "Opens the server's database (DATA_DIR, or DATABASE_URL with APP_KEY) and prints JSON.",
    "",
    ...COMMANDS.flatMap((c) => [`  ${c.name.padEnd(width)}  ${c.summary}`, `      ${c.usage}`]),
    `  ${"help".padEnd(width)}  This text.`,
  ].join("\n");
}

/** One line on stderr: scripts parse it as JSON, people read it as a sentence. */
function fail(body: Record<string, unknown>): number {
  console.error(JSON.stringify(body));
  return 1;
}

/** Run one command line; returns the exit code. */
export async function runAdmin(
  argv: string[],
  env: Record<string, string | undefined> = Deno.env.toObject(),
): Promise<number> {
  const args = parseArgs(argv);
  const name = args.positionals.shift();
  if (!name || name === "help" || args.flags.has("help")) {
    console.log(helpText());
    return name || args.flags.has("help") ? 0 : 1;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) return fail({ error: `Unknown command "${name}". Run "help" for the list.` });
  let opened;
  try {
    opened = await openAdmin(env);
  } catch (err) {
    if (err instanceof ConfigError || err instanceof EmbeddedDatabaseBusy) {
      return fail({ error: err.message });
    }
    return fail({ error: `Could not open the database: ${(err as Error).message ?? err}` });
  }
  try {
    const result = await command.run(opened.deps, args);
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (err) {
    if (err instanceof Invalid) return fail({ error: err.message, errors: err.errors });
    if (err instanceof DomainError) return fail({ error: err.message });
    return fail({ error: `Unexpected failure: ${(err as Error).message ?? String(err)}` });
  } finally {
    await opened.close();
  }
}

if (import.meta.main) Deno.exit(await runAdmin(Deno.args));
