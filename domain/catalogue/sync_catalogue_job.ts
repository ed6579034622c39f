/**
 * The `catalogue_sync` job: read the linked Shopify store's products (all
 * pages), embed them when the workspace's bot has an embeddings provider and
 * pgvector is on (full-text only when that fails), and make the stored catalogue exactly that, in one
 * transaction, so answers never see half a catalogue. Then queue the next
 * sync. A store unlinked meanwhile ends the job with nothing stored.
 */
import type { AppDeps } from "../deps.ts";
import {
  catalogueBot,
  type NewCatalogueProduct,
  replaceCatalogue,
  setCatalogueSync,
} from "../../db/catalogue.ts";
import { listIntegrations } from "../../db/workspace_integrations.ts";
import { hostAllowancePolicy } from "../crawl/host_allowance.ts";
import { readCredential } from "../customer_context/integration_credentials.ts";
import { findProviderClient } from "../ai/provider_client.ts";
import { EmbeddingsUnsupported, embedTexts } from "../ai/embed_texts.ts";
import type { JobHandler } from "../jobs/job_runner.ts";
import { fetchShopifyProducts } from "./fetch_shopify_products.ts";
import { scheduleCatalogueSync } from "./catalogue_jobs.ts";
import { forgetNoCatalogue } from "./catalogue_presence.ts";

/** One Admin API page may take this long (a catalogue page is larger than an order lookup). */
const PAGE_TIMEOUT_MS = 30_000;

export const syncCatalogueJob: JobHandler = {
  async run(deps, raw, ctx) {
    const workspaceId = Number(raw.workspaceId);
    const store = (await listIntegrations(deps.sql, workspaceId))
      .find((i) => i.service === "storefront");
    if (!store?.account) return; // unlinked: nothing to sync, nothing to schedule
    await setCatalogueSync(deps.sql, workspaceId, { status: "syncing" });
    const products = await fetchShopifyProducts(
      { domain: store.account, accessToken: await readCredential(deps.appKey, store) },
      {
        // The storefront is an integration: its allowance is CONTEXT_ALLOW_HOSTS, as for orders.
        policy: (url: URL) =>
          hostAllowancePolicy(deps.config.integrationAllowHosts, url, "CONTEXT_ALLOW_HOSTS"),
        timeoutMs: Math.max(PAGE_TIMEOUT_MS, deps.config.customerContextTimeoutMs),
        baseUrl: deps.config.shopifyBaseUrl,
      },
      ctx.signal,
    );
    const bot = await catalogueBot(deps.sql, workspaceId);
    const embedded = await embedProducts(deps, workspaceId, bot?.provider ?? null, products);
    const stored = await deps.sql.begin(async (tx) => {
      // Unlinked while the store was read: store nothing (unlinking deleted the rest).
      const [still] = await tx`
        SELECT 1 FROM workspace_integrations
         WHERE workspace_id = ${workspaceId} AND service = 'storefront' FOR UPDATE`;
      if (!still) return false;
      await replaceCatalogue(tx, workspaceId, {
        language: bot?.language ?? "english",
        embeddingModel: embedded,
        withVectors: embedded !== null,
      }, products);
      await setCatalogueSync(tx, workspaceId, { status: "ready", products: products.length });
      return true;
    });
    if (!stored) return;
    forgetNoCatalogue(workspaceId);
    await scheduleCatalogueSync(deps.sql, [workspaceId], deps.config.catalogueSyncHours * 3600);
    deps.log.info("catalogue synced", { workspace: workspaceId, products: products.length });
  },
  async onRetry(deps, raw, reason) {
    await setCatalogueSync(deps.sql, Number(raw.workspaceId), { status: "pending", error: reason });
  },
  async onGiveUp(deps, raw, reason) {
    const workspaceId = Number(raw.workspaceId);
    await setCatalogueSync(deps.sql, workspaceId, { status: "failed", error: reason });
    // The store may be back by the next period: the catalogue keeps its last good state meanwhile.
    await scheduleCatalogueSync(deps.sql, [workspaceId], deps.config.catalogueSyncHours * 3600);
  },
};

/**
 * Adds `embedding` to each product when the provider offers embeddings and
 * pgvector is on; returns the model used, or null for full-text only.
 */
async function embedProducts(
  deps: AppDeps,
  workspaceId: number,
  provider: string | null,
  products: NewCatalogueProduct[],
): Promise<string | null> {
  if (!deps.db.vector || !provider || products.length === 0) return null;
  const client = await findProviderClient(deps, workspaceId, provider);
  const model = client?.info.embeddingModel;
  if (!client || !model) return null;
  try {
    const vectors = await embedTexts(
      client.client,
      model,
      products.map((p) => `${p.name}\n${p.searchText}`),
    );
    products.forEach((p, i) => (p.embedding = vectors[i] ?? null));
    return model;
  } catch (err) {
    // The catalogue is still searched by full text; the next sync tries the vectors again.
    if (!(err instanceof EmbeddingsUnsupported)) {
      deps.log.warn("catalogue embeddings failed; full-text only", { err: String(err) });
    }
    return null;
  }
}
