/** key:list, key:set, key:delete: a workspace's AI provider keys (never printed back). */
import { deleteKey, listKeys, setKey } from "../../domain/admin/manage_provider_keys.ts";
import { positional, required } from "../args.ts";
import type { Command } from "./command.ts";

const SET_USAGE = "key:set <workspace> <provider> <api_key>";
const DELETE_USAGE = "key:delete <workspace> <provider>";

export const keyCommands: Command[] = [
  {
    name: "key:list",
    usage: "key:list --workspace <slug>",
    summary: "The eight providers with whether a key is stored and its last four characters.",
    run: (deps, args) => listKeys(deps, { workspace: required(args, "workspace") }),
  },
  {
    name: "key:set",
    usage: `${SET_USAGE}   (provider_1 … provider_8, docs/providers.md)`,
    summary: "Store or replace a workspace's key for one provider, encrypted under APP_KEY.",
    run: (deps, args) =>
      setKey(deps, {
        workspace: positional(args, 0, "workspace", SET_USAGE),
        provider: positional(args, 1, "provider", SET_USAGE),
        apiKey: positional(args, 2, "api_key", SET_USAGE),
      }),
  },
  {
    name: "key:delete",
    usage: DELETE_USAGE,
    summary: "Remove a workspace's key for one provider (no key stored: still succeeds).",
    run: (deps, args) =>
      deleteKey(deps, {
        workspace: positional(args, 0, "workspace", DELETE_USAGE),
        provider: positional(args, 1, "provider", DELETE_USAGE),
      }),
  },
];
