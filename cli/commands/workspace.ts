/** workspace:create, workspace:suspend, workspace:unsuspend. */
import { createWorkspace } from "../../domain/admin/create_workspace.ts";
import { setWorkspaceSuspended } from "../../domain/admin/set_workspace_suspended.ts";
import { flag, optional, required } from "../args.ts";
import type { Command } from "./command.ts";

export const workspaceCommands: Command[] = [
  {
    name: "workspace:create",
    usage: "workspace:create --name <name> --slug <slug> [--plan free] [--portal]",
    summary: "Create a workspace on a plan (--portal enables the white-label portal).",
    run: (deps, args) =>
      createWorkspace(deps, {
        name: required(args, "name"),
        slug: required(args, "slug"),
        plan: optional(args, "plan") ?? "free",
        portalEnabled: flag(args, "portal"),
      }),
  },
  {
    name: "workspace:suspend",
    usage: "workspace:suspend --slug <slug>",
    summary: "Suspend a workspace: its tokens answer 403, its widgets 404.",
    run: (deps, args) =>
      setWorkspaceSuspended(deps, { slug: required(args, "slug"), suspended: true }),
  },
  {
    name: "workspace:unsuspend",
    usage: "workspace:unsuspend --slug <slug>",
    summary: "Restore a suspended workspace.",
    run: (deps, args) =>
      setWorkspaceSuspended(deps, { slug: required(args, "slug"), suspended: false }),
  },
];
