/** Command-line parsing for the admin CLI: positionals and `--flag value` / `--flag=value`. */
import { Invalid } from "../domain/errors.ts";

export interface ParsedArgs {
  positionals: string[];
  flags: Map<string, string | true>;
}

export function parseArgs(argv: string[]): ParsedArgs {
  const positionals: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith("--")) {
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf("=");
    if (eq !== -1) {
      flags.set(arg.slice(2, eq), arg.slice(eq + 1));
    } else if (i + 1 < argv.length && !argv[i + 1]!.startsWith("--")) {
      flags.set(arg.slice(2), argv[++i]!);
    } else {
      flags.set(arg.slice(2), true);
    }
  }
  return { positionals, flags };
}

/** A required `--name value`; Invalid naming the flag when absent. */
export function required(args: ParsedArgs, name: string): string {
  const v = args.flags.get(name);
  if (typeof v !== "string" || v === "") {
    throw Invalid.field(name, `The --${name} option is required.`);
  }
  return v;
}

export function optional(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  return typeof v === "string" ? v : undefined;
}

export function flag(args: ParsedArgs, name: string): boolean {
  const v = args.flags.get(name);
  return v === true || v === "1" || v === "true";
}

/** The `index`-th positional argument after the command name; Invalid naming it when absent. */
export function positional(args: ParsedArgs, index: number, name: string, usage: string): string {
  const v = args.positionals[index];
  if (v === undefined || v.trim() === "") {
    throw Invalid.field(name, `The <${name}> argument is required: ${usage}`);
  }
  return v;
}
