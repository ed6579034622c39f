/** token:create (a settings token by default) and token:revoke. */
import { createToken } from "../../domain/admin/create_token.ts";
import { revokeToken } from "../../domain/admin/revoke_token.ts";
import { Invalid } from "../../domain/errors.ts";
import { optional, required } from "../args.ts";
import type { Command } from "./command.ts";

export const tokenCommands: Command[] = [
  {
    name: "token:create",
    usage: "token:create --email <email> --name <name> [--ability api|portal|agent|dashboard]",
    summary: "Issue a token (ability api: a settings token); the plain text is printed once.",
    run: (deps, args) =>
      createToken(deps, {
        email: required(args, "email"),
        name: required(args, "name"),
        ability: optional(args, "ability"),
      }),
  },
  {
    name: "token:revoke",
    usage: "token:revoke --id <id>   (the number before | in the token)",
    summary: "Revoke a token at once.",
    run: (deps, args) => {
      const raw = required(args, "id");
      const id = Number(raw.split("|")[0]);
      if (!Number.isSafeInteger(id) || id <= 0) {
        throw Invalid.field("id", "The --id option must be a token id (a positive integer).");
      }
      return revokeToken(deps, { id });
    },
  },
];
