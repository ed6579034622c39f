/**
 * A test server whose Acme workspace links its storefront to the
 * Shopify-shaped fake (synced by the real job) and answers with the fake AI:
 * the shop that the widget's product tests ask their questions of.
 */
import { startTestServer, type TestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import type { FakeAi } from "../helpers/fake_ai.ts";
import type { FakeShopify } from "../helpers/fake_shopify.ts";
import { waitForCatalogue, WIDGET_ENV } from "./widget_client.ts";

export async function startShopServer(opts: {
  ai: FakeAi;
  shopify: FakeShopify;
  /** A help page added to Acme's bot, beside the standard seed's. */
  helpPage?: { title: string; content: string };
}): Promise<TestServer> {
  const seed = standardSeed();
  const acme = seed.workspaces[0]!;
  Object.assign(acme, {
    integrations: {
      storefront: { shop: "acme-store.myshopify.com", access_token: opts.shopify.accessToken },
    },
  });
  if (opts.helpPage) {
    (acme.chatbots![0]!.knowledge as unknown[]).push({ type: "text", ...opts.helpPage });
  }
  const s = await startTestServer({
    seed,
    env: {
      ...WIDGET_ENV,
      AI_BASE_URL: opts.ai.baseUrl,
      SHOPIFY_BASE_URL: opts.shopify.baseUrl,
      CRAWL_ALLOW_PRIVATE: "0",
      CONTEXT_ALLOW_HOSTS: opts.shopify.hostPort,
    },
  });
  await waitForCatalogue(s.deps.sql);
  return s;
}
