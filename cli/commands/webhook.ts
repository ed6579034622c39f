/** webhook:list, webhook:add, webhook:remove, webhook:rotate: a workspace's outbound webhook endpoints. */
import {
  addWebhook,
  listWebhooks,
  removeWebhook,
  rotateWebhook,
} from "../../domain/admin/manage_webhooks.ts";
import { optional, required } from "../args.ts";
import type { Command } from "./command.ts";

export const webhookCommands: Command[] = [
  {
    name: "webhook:list",
    usage: "webhook:list --workspace <slug>",
    summary: "The workspace's webhook endpoints (never their secrets).",
    run: (deps, args) => listWebhooks(deps, { workspace: required(args, "workspace") }),
  },
  {
    name: "webhook:add",
    usage:
      "webhook:add --workspace <slug> --url <https://…> --events <type,type,…> [--description <text>]",
    summary: "Add an endpoint; its whsec_ signing secret is printed this once (docs/webhooks.md).",
    run: (deps, args) =>
      addWebhook(deps, {
        workspace: required(args, "workspace"),
        url: required(args, "url"),
        events: required(args, "events"),
        description: optional(args, "description"),
      }),
  },
  {
    name: "webhook:remove",
    usage: "webhook:remove --workspace <slug> --id <endpoint id>",
    summary: "Remove an endpoint with its deliveries and their log.",
    run: (deps, args) =>
      removeWebhook(deps, { workspace: required(args, "workspace"), id: required(args, "id") }),
  },
  {
    name: "webhook:rotate",
    usage: "webhook:rotate --workspace <slug> --id <endpoint id> [--overlap-hours 24]",
    summary: "A new signing secret, printed once; the old one also signs for the overlap.",
    run: (deps, args) =>
      rotateWebhook(deps, {
        workspace: required(args, "workspace"),
        id: required(args, "id"),
        overlapHours: optional(args, "overlap-hours"),
      }),
  },
];
