/** The shape of one admin CLI command. */
import type { AdminDeps } from "../../domain/admin/admin_deps.ts";
import type { ParsedArgs } from "../args.ts";

export interface Command {
  name: string;
  usage: string;
  summary: string;
  run(deps: AdminDeps, args: ParsedArgs): Promise<unknown>;
}
