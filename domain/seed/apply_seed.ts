/**
 * Apply a seed idempotently: every object is keyed (workspace slug, user
 * e-mail, token name, bot public key, tag name, canned title, knowledge
 * title), so applying the same file twice changes nothing. Each workspace is
 * written in one transaction; its knowledge is indexed before this returns.
 */
import type { Sql, Tx } from "../../db/client.ts";
import * as plans from "../../db/workspaces.ts";
import * as users from "../../db/users.ts";
import * as tokens from "../../db/tokens.ts";
import * as bots from "../../db/chatbots.ts";
import * as keys from "../../db/provider_keys.ts";
import * as tags from "../../db/tags.ts";
import * as canned from "../../db/canned_replies.ts";
import * as knowledge from "../../db/knowledge.ts";
import { hashPassword, verifyPassword } from "../auth/passwords.ts";
import { decryptText, encryptText, randomSecret, sha256Hex } from "../auth/secrets.ts";
import { sealIdentitySecret } from "../auth/identity_secret.ts";
import { TOKEN_LIFETIME_MS } from "../auth/tokens.ts";
import { trainSource } from "../knowledge/train_source.ts";
import { linkIntegration } from "../customer_context/integration_credentials.ts";
import { listIntegrations } from "../../db/workspace_integrations.ts";
import { Invalid } from "../errors.ts";
import { seedWebhooks } from "./seed_webhooks.ts";
import { type Seed, seedSchema, type SeedWorkspace } from "./seed_schema.ts";

export interface SeedDeps {
  sql: Sql;
  appKey: CryptoKey;
  now: Date;
}

export interface SeedReport {
  workspaces: { id: number; slug: string }[];
  trained: number;
}

/** Validate raw JSON into a Seed, or Invalid with the offending paths. */
export function parseSeed(raw: unknown): Seed {
  const parsed = seedSchema.safeParse(raw);
  if (!parsed.success) {
    const errors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) {
      (errors[issue.path.join(".") || "seed"] ??= []).push(issue.message);
    }
    throw new Invalid("The seed file is invalid.", errors);
  }
  return parsed.data;
}

export async function applySeed(deps: SeedDeps, raw: unknown): Promise<SeedReport> {
  const seed = parseSeed(raw);
  for (const plan of seed.plans) await plans.upsertPlan(deps.sql, plan);
  const report: SeedReport = { workspaces: [], trained: 0 };
  for (const ws of seed.workspaces) {
    const { workspaceId, toTrain } = await deps.sql.begin((tx) => seedWorkspace(tx, deps, ws));
    report.workspaces.push({ id: workspaceId, slug: ws.slug });
    for (const t of toTrain) {
      // Full-text only at seeding: the server start must not depend on a provider.
      await trainSource(
        { sql: deps.sql, appKey: deps.appKey },
        workspaceId,
        t.sourceId,
        t.language,
      );
      report.trained++;
    }
  }
  return report;
}

async function seedWorkspace(
  tx: Tx,
  deps: SeedDeps,
  ws: SeedWorkspace,
): Promise<{ workspaceId: number; toTrain: { sourceId: number; language: string }[] }> {
  const plan = await plans.findPlanByCode(tx, ws.plan);
  if (!plan) throw Invalid.field("plan", `Unknown plan "${ws.plan}" for workspace ${ws.slug}.`);
  const before = await plans.findWorkspaceBySlug(tx, ws.slug);
  const workspace = await plans.upsertWorkspace(tx, {
    name: ws.name,
    slug: ws.slug,
    planId: plan.id,
    portalEnabled: ws.portal_enabled,
    suspended: ws.suspended,
    identitySecretCiphertext: await sealIdentitySecret(
      deps.appKey,
      ws.identity_secret ?? null,
      before?.identity_secret_ciphertext ?? null,
    ),
  });
  const wid = workspace.id;
  const userIds = new Map<string, number>();

  for (const u of ws.users) {
    const existing = await users.findUserByEmail(tx, u.email);
    if (existing && existing.workspace_id !== wid) {
      throw Invalid.field("email", `${u.email} already belongs to another workspace.`);
    }
    let userId: number;
    if (existing) {
      await users.updateUser(tx, wid, existing.id, {
        name: u.name,
        role: u.role as users.UserRow["role"],
        suspended: u.suspended,
        passwordHash: await changedPasswordHash(u, existing.password_hash),
      });
      userId = existing.id;
    } else {
      userId = (await users.insertUser(tx, {
        workspaceId: wid,
        name: u.name,
        email: u.email,
        passwordHash: u.password_hash ?? await hashPassword(u.password!),
        role: u.role as users.UserRow["role"],
        suspended: u.suspended,
      })).id;
    }
    userIds.set(u.email.toLowerCase(), userId);
    for (const t of u.tokens) await seedToken(tx, deps, wid, userId, t);
  }

  for (const k of ws.provider_keys) {
    const stored = await keys.findProviderKey(tx, wid, k.provider);
    if (
      stored && await decryptText(deps.appKey, stored.ciphertext).catch(() => null) === k.api_key
    ) {
      continue;
    }
    await keys.upsertProviderKey(
      tx,
      wid,
      k.provider,
      await encryptText(deps.appKey, k.api_key),
      k.api_key.slice(-4),
    );
  }

  await seedIntegrations(tx, deps, wid, ws.integrations);
  await seedWebhooks(tx, deps, wid, ws.webhooks);

  const toTrain: { sourceId: number; language: string }[] = [];
  for (const b of ws.chatbots) {
    const bot = await bots.upsertChatbot(tx, wid, {
      name: b.name,
      publicKey: b.public_key,
      role: b.role,
      provider: b.provider,
      model: b.model,
      isActive: b.is_active,
      persona: b.persona,
      instructions: b.instructions,
      welcomeMessage: b.welcome_message ? b.welcome_message : null,
      branding: b.branding,
      language: b.language,
    });
    for (const k of b.knowledge) {
      const title = k.title ?? (k.type === "qa" ? k.question.slice(0, 200) : "Untitled");
      const body = k.type === "qa" ? `${k.question}\n${k.answer}` : k.content;
      const hash = await sha256Hex(body);
      const same = await knowledge.findSourceByHash(tx, wid, bot.id, title, hash);
      if (same && same.status === "ready") continue;
      const source = same ?? await knowledge.insertSource(tx, wid, {
        chatbotId: bot.id,
        type: k.type,
        title,
        content: k.type === "text" ? k.content : null,
        question: k.type === "qa" ? k.question : null,
        answer: k.type === "qa" ? k.answer : null,
        contentHash: hash,
        status: "processing",
      });
      toTrain.push({ sourceId: source.id, language: b.language });
    }
  }

  for (const t of ws.tags) await tags.upsertTag(tx, wid, t.name, t.color);
  for (const c of ws.canned) {
    const owner = c.owner_email ? userIds.get(c.owner_email.toLowerCase()) : null;
    if (c.owner_email && !owner) {
      throw Invalid.field("owner_email", `${c.owner_email} is not a user of ${ws.slug}.`);
    }
    await canned.upsertCanned(tx, wid, {
      title: c.title,
      shortcut: c.shortcut ?? null,
      body: c.body,
      ownerUserId: owner ?? null,
    });
  }
  return { workspaceId: wid, toTrain };
}

/** Link the seed's services; an unchanged credential and shop are left as stored. */
async function seedIntegrations(
  tx: Tx,
  deps: SeedDeps,
  workspaceId: number,
  integrations: SeedWorkspace["integrations"],
): Promise<void> {
  const wanted = [
    integrations.storefront && {
      service: "storefront" as const,
      shop: integrations.storefront.shop,
      credential: integrations.storefront.access_token,
    },
    integrations.billing && {
      service: "billing" as const,
      shop: null,
      credential: integrations.billing.secret_key,
    },
  ].filter((w) => w !== undefined);
  if (wanted.length === 0) return;
  const stored = await listIntegrations(tx, workspaceId);
  for (const w of wanted) {
    const row = stored.find((r) => r.service === w.service);
    if (
      row && (row.account ?? null) === (w.shop?.trim().toLowerCase() ?? null) &&
      await decryptText(deps.appKey, row.ciphertext).catch(() => null) === w.credential
    ) {
      continue;
    }
    await linkIntegration(tx, deps.appKey, workspaceId, w);
  }
}

/**
 * The hash to store for a seeded user who exists, or undefined to keep it: a
 * password is re-hashed only when it no longer verifies (a fresh salt each
 * time would rewrite the row at every start), a given hash only when it differs.
 */
async function changedPasswordHash(
  u: SeedWorkspace["users"][number],
  stored: string | null,
): Promise<string | undefined> {
  if (u.password_hash !== undefined) {
    return u.password_hash === stored ? undefined : u.password_hash;
  }
  return await verifyPassword(u.password!, stored) ? undefined : await hashPassword(u.password!);
}

async function seedToken(
  tx: Tx,
  deps: SeedDeps,
  workspaceId: number,
  userId: number,
  t: SeedWorkspace["users"][number]["tokens"][number],
): Promise<void> {
  const expiresAt = t.expires_at
    ? new Date(t.expires_at)
    : new Date(deps.now.getTime() + TOKEN_LIFETIME_MS);
  if (Number.isNaN(expiresAt.getTime())) {
    throw Invalid.field("expires_at", `Token ${t.name} has an invalid expires_at.`);
  }
  const existing = await tokens.findTokenByName(tx, workspaceId, userId, t.name);
  if (!t.token) {
    // No plain text given: issue one the first time, keep it afterwards.
    if (existing) return;
    const secret = randomSecret(30);
    await tokens.insertToken(tx, {
      workspaceId,
      userId,
      name: t.name,
      ability: t.ability,
      secretHash: await sha256Hex(secret),
      expiresAt,
    });
    return;
  }
  const m = /^(\d{1,15})\|(.+)$/.exec(t.token);
  const secretHash = await sha256Hex(m ? m[2]! : t.token);
  if (existing) {
    // Keyed by name: the same seed leaves the row as it is (expiry included
    // when the seed fixes it; a seed without expires_at keeps the first one).
    await tokens.updateTokenSecret(tx, workspaceId, existing.id, {
      secretHash,
      ability: t.ability,
      expiresAt: t.expires_at ? expiresAt : existing.expires_at,
    });
    return;
  }
  const row = { workspaceId, userId, name: t.name, ability: t.ability, secretHash, expiresAt };
  if (m) await tokens.insertTokenWithId(tx, Number(m[1]), row);
  else await tokens.insertToken(tx, row);
}
