/** workspace:list, user:list, token:list, chatbot:list, tag:list, canned:list: read-only views. */
import {
  listAllWorkspaces,
  listWorkspaceCanned,
  listWorkspaceChatbots,
  listWorkspaceTags,
  listWorkspaceTokens,
  listWorkspaceUsers,
} from "../../domain/admin/list_records.ts";
import { optional } from "../args.ts";
import type { Command } from "./command.ts";

export const listCommands: Command[] = [
  {
    name: "workspace:list",
    usage: "workspace:list",
    summary: "Every workspace with its plan, portal and suspension state and counts.",
    run: (deps) => listAllWorkspaces(deps),
  },
  {
    name: "user:list",
    usage: "user:list [--workspace <slug>]",
    summary: "Users (all, or one workspace's) with role and suspension state.",
    run: (deps, args) => listWorkspaceUsers(deps, { workspace: optional(args, "workspace") }),
  },
  {
    name: "token:list",
    usage: "token:list [--workspace <slug>] [--email <email>]",
    summary: "Tokens by id, name, ability and state (active, revoked, expired); never the token.",
    run: (deps, args) =>
      listWorkspaceTokens(deps, {
        workspace: optional(args, "workspace"),
        email: optional(args, "email"),
      }),
  },
  {
    name: "chatbot:list",
    usage: "chatbot:list [--workspace <slug>]",
    summary: "Bots (all, or one workspace's) with key, provider, model and state.",
    run: (deps, args) => listWorkspaceChatbots(deps, { workspace: optional(args, "workspace") }),
  },
  {
    name: "tag:list",
    usage: "tag:list [--workspace <slug>]",
    summary: "Tags (all, or one workspace's) with colour and how many conversations carry each.",
    run: (deps, args) => listWorkspaceTags(deps, { workspace: optional(args, "workspace") }),
  },
  {
    name: "canned:list",
    usage: "canned:list [--workspace <slug>]",
    summary: "Canned replies with shortcut, body, owner (null: shared) and use count.",
    run: (deps, args) => listWorkspaceCanned(deps, { workspace: optional(args, "workspace") }),
  },
];
