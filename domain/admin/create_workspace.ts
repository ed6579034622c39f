/** Create a workspace on a plan; a taken slug is a Conflict, never an overwrite. */
import { findPlanByCode, findWorkspaceBySlug, upsertWorkspace } from "../../db/workspaces.ts";
import { Conflict, Invalid } from "../errors.ts";
import type { AdminDeps } from "./admin_deps.ts";

export interface CreatedWorkspace {
  id: number;
  name: string;
  slug: string;
  plan: string;
  portal_enabled: boolean;
}

export async function createWorkspace(
  deps: AdminDeps,
  input: { name: string; slug: string; plan: string; portalEnabled: boolean },
): Promise<CreatedWorkspace> {
  if (!/^[a-z0-9-]{1,100}$/.test(input.slug)) {
    throw Invalid.field("slug", "The slug may hold only a-z, 0-9 and hyphens (up to 100).");
  }
  if (!input.name.trim()) throw Invalid.field("name", "The name field is required.");
  const plan = await findPlanByCode(deps.sql, input.plan);
  if (!plan) throw Invalid.field("plan", `Unknown plan "${input.plan}".`);
  if (await findWorkspaceBySlug(deps.sql, input.slug)) {
    throw new Conflict(`A workspace with slug "${input.slug}" already exists.`);
  }
  const ws = await upsertWorkspace(deps.sql, {
    name: input.name.trim(),
    slug: input.slug,
    planId: plan.id,
    portalEnabled: input.portalEnabled,
    suspended: false,
    identitySecretCiphertext: null,
  });
  return {
    id: ws.id,
    name: ws.name,
    slug: ws.slug,
    plan: plan.code,
    portal_enabled: ws.portal_enabled,
  };
}
