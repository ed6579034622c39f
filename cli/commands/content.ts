/** chatbot:create, tag:create, canned:create. */
import { createCanned } from "../../domain/admin/create_canned.ts";
import { createChatbot } from "../../domain/admin/create_chatbot.ts";
import { createTag } from "../../domain/admin/create_tag.ts";
import { optional, required } from "../args.ts";
import type { Command } from "./command.ts";

export const contentCommands: Command[] = [
  {
    name: "chatbot:create",
    usage:
      "chatbot:create --workspace <slug> --name <name> [--key <public-key>] [--provider provider_1] [--model gpt-4o-mini]",
    summary: "Create an active chatbot; its public key is generated unless given.",
    run: (deps, args) =>
      createChatbot(deps, {
        workspace: required(args, "workspace"),
        name: required(args, "name"),
        publicKey: optional(args, "key"),
        provider: optional(args, "provider"),
        model: optional(args, "model"),
      }),
  },
  {
    name: "tag:create",
    usage: "tag:create --workspace <slug> --name <name> [--color #6b7280]",
    summary: "Add a tag to the workspace catalogue (same name: colour updated).",
    run: (deps, args) =>
      createTag(deps, {
        workspace: required(args, "workspace"),
        name: required(args, "name"),
        color: optional(args, "color"),
      }),
  },
  {
    name: "canned:create",
    usage:
      "canned:create --workspace <slug> --title <title> --body <text> [--shortcut /hi] [--owner <email>]",
    summary: "Add a canned reply, shared or owned by one agent (same title: updated).",
    run: (deps, args) =>
      createCanned(deps, {
        workspace: required(args, "workspace"),
        title: required(args, "title"),
        body: required(args, "body"),
        shortcut: optional(args, "shortcut"),
        owner: optional(args, "owner"),
      }),
  },
];
