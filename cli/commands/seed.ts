/** seed:apply <file>. */
import { applySeedFile } from "../../domain/admin/apply_seed_file.ts";
import { Invalid } from "../../domain/errors.ts";
import type { Command } from "./command.ts";

export const seedCommands: Command[] = [
  {
    name: "seed:apply",
    usage: "seed:apply <file.json>",
    summary: "Apply a seed file (docs/seeding.md); idempotent, like SEED_FILE at start.",
    run: (deps, args) => {
      const file = args.positionals[0];
      if (!file) throw Invalid.field("file", "Name the seed file: seed:apply <file.json>.");
      return applySeedFile(deps, file);
    },
  },
];
