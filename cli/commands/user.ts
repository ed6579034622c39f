/** user:create, user:suspend, user:unsuspend, user:password. */
import { createUser } from "../../domain/admin/create_user.ts";
import { setUserSuspended } from "../../domain/admin/set_user_suspended.ts";
import { setUserPassword } from "../../domain/admin/set_user_password.ts";
import { optional, required } from "../args.ts";
import type { Command } from "./command.ts";

export const userCommands: Command[] = [
  {
    name: "user:create",
    usage:
      "user:create --workspace <slug> --email <email> --name <name> [--role agent] [--password <pw>]",
    summary:
      "Create a user (owner, administrator, agent, viewer); a password is generated if none.",
    run: (deps, args) =>
      createUser(deps, {
        workspace: required(args, "workspace"),
        email: required(args, "email"),
        name: required(args, "name"),
        role: optional(args, "role") ?? "agent",
        password: optional(args, "password"),
      }),
  },
  {
    name: "user:suspend",
    usage: "user:suspend --email <email>",
    summary: "Suspend an account: its tokens answer 403.",
    run: (deps, args) =>
      setUserSuspended(deps, { email: required(args, "email"), suspended: true }),
  },
  {
    name: "user:unsuspend",
    usage: "user:unsuspend --email <email>",
    summary: "Restore a suspended account.",
    run: (deps, args) =>
      setUserSuspended(deps, { email: required(args, "email"), suspended: false }),
  },
  {
    name: "user:password",
    usage: "user:password --email <email> (--password <pw> | --link)",
    summary: "Set a password (every session of the account ends), or print a one-hour " +
      "single-use reset link.",
    run: (deps, args) =>
      setUserPassword(deps, {
        email: required(args, "email"),
        password: optional(args, "password"),
        link: args.flags.has("link"),
      }),
  },
];
