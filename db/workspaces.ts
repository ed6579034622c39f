/** plans and workspaces: the tenant and its commercial plan. */
import type { Executor } from "./client.ts";

export interface PlanRow {
  id: number;
  code: string;
  name: string;
  monthly_message_limit: number | null;
  chatbot_limit: number;
  agent_seats: number;
}

export interface WorkspaceRow {
  id: number;
  name: string;
  slug: string;
  plan_id: number;
  portal_enabled: boolean;
  suspended: boolean;
  /** AES-GCM under APP_KEY (domain/auth/identity_secret.ts); never plain text. */
  identity_secret_ciphertext: string | null;
  brand_name: string | null;
  brand_logo_url: string | null;
  created_at: Date;
}

export async function upsertPlan(sql: Executor, p: Omit<PlanRow, "id">): Promise<PlanRow> {
  const [row] = await sql<PlanRow[]>`
    INSERT INTO plans (code, name, monthly_message_limit, chatbot_limit, agent_seats)
    VALUES (${p.code}, ${p.name}, ${p.monthly_message_limit}, ${p.chatbot_limit}, ${p.agent_seats})
    ON CONFLICT (code) DO UPDATE SET name = EXCLUDED.name,
      monthly_message_limit = EXCLUDED.monthly_message_limit,
      chatbot_limit = EXCLUDED.chatbot_limit, agent_seats = EXCLUDED.agent_seats
    RETURNING *`;
  return row!;
}

export async function findPlanByCode(sql: Executor, code: string): Promise<PlanRow | null> {
  const [row] = await sql<PlanRow[]>`SELECT * FROM plans WHERE code = ${code}`;
  return row ?? null;
}

export async function findPlanOfWorkspace(sql: Executor, workspaceId: number): Promise<PlanRow> {
  const [row] = await sql<PlanRow[]>`
    SELECT p.* FROM plans p JOIN workspaces w ON w.plan_id = p.id WHERE w.id = ${workspaceId}`;
  return row!;
}

export async function findWorkspaceBySlug(
  sql: Executor,
  slug: string,
): Promise<WorkspaceRow | null> {
  const [row] = await sql<WorkspaceRow[]>`SELECT * FROM workspaces WHERE slug = ${slug}`;
  return row ?? null;
}

export async function findWorkspace(sql: Executor, id: number): Promise<WorkspaceRow | null> {
  const [row] = await sql<WorkspaceRow[]>`SELECT * FROM workspaces WHERE id = ${id}`;
  return row ?? null;
}

export async function upsertWorkspace(
  sql: Executor,
  w: {
    name: string;
    slug: string;
    planId: number;
    portalEnabled: boolean;
    suspended: boolean;
    identitySecretCiphertext: string | null;
  },
): Promise<WorkspaceRow> {
  const [row] = await sql<WorkspaceRow[]>`
    INSERT INTO workspaces
      (name, slug, plan_id, portal_enabled, suspended, identity_secret_ciphertext)
    VALUES (${w.name}, ${w.slug}, ${w.planId}, ${w.portalEnabled}, ${w.suspended},
      ${w.identitySecretCiphertext})
    ON CONFLICT (slug) DO UPDATE SET name = EXCLUDED.name, plan_id = EXCLUDED.plan_id,
      portal_enabled = EXCLUDED.portal_enabled, suspended = EXCLUDED.suspended,
      identity_secret_ciphertext = EXCLUDED.identity_secret_ciphertext
    RETURNING *`;
  return row!;
}

/** Identity secrets still in plain text from before they were encrypted at rest. */
export async function listLegacyIdentitySecrets(
  sql: Executor,
): Promise<{ id: number; secret: string }[]> {
  return await sql<{ id: number; secret: string }[]>`
    SELECT id, legacy_identity_secret AS secret FROM workspaces
    WHERE legacy_identity_secret IS NOT NULL ORDER BY id`;
}

/**
 * Store the encrypted form of a legacy secret and empty the plain one, unless
 * the plain one changed meanwhile (then the next start takes it).
 */
export async function replaceLegacyIdentitySecret(
  sql: Executor,
  id: number,
  plain: string,
  ciphertext: string,
): Promise<void> {
  await sql`
    UPDATE workspaces SET identity_secret_ciphertext = ${ciphertext}, legacy_identity_secret = NULL
    WHERE id = ${id} AND legacy_identity_secret = ${plain}`;
}

export async function setWorkspaceSuspended(
  sql: Executor,
  id: number,
  suspended: boolean,
): Promise<void> {
  await sql`UPDATE workspaces SET suspended = ${suspended} WHERE id = ${id}`;
}
