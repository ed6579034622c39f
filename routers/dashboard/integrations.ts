/**
 * The Integrations screen: GET /api/dashboard/integrations, PUT and DELETE
 * /api/dashboard/integrations/{service}, POST …/{service}/test. `service` is
 * `storefront` (a Shopify store) or `billing` (a Stripe account), the spec's
 * neutral words (R-N).
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { listWorkspaceIntegrations } from "../../domain/integrations/list_integrations.ts";
import { linkWorkspaceIntegration } from "../../domain/integrations/link_workspace_integration.ts";
import { unlinkWorkspaceIntegration } from "../../domain/integrations/unlink_workspace_integration.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";
import { testWorkspaceIntegration } from "../../domain/integrations/test_workspace_integration.ts";

const service = z.enum(["storefront", "billing"], {
  error: "The service must be storefront or billing.",
});
const shop = z.string().trim().max(255).nullish();
const credential = z.string().trim()
  .min(12, "The credential is too short to be an access token or a secret key.")
  .max(300, "The credential may not be longer than 300 characters.");

const integration = z.object({
  service,
  provider: z.enum(["Shopify", "Stripe"]),
  linked: z.boolean(),
  shop: z.string().nullable(),
  last_four: z.string().nullable(),
  linked_at: z.string().nullable(),
  linked_by: z.object({ id: z.int(), name: z.string() }).nullable(),
  state: z.enum(["not_linked", "untested", "connected", "failing"]),
  last_check: z.object({ ok: z.boolean(), message: z.string(), checked_at: z.string() })
    .nullable(),
  catalogue: z.object({
    status: z.enum(["none", "pending", "syncing", "ready", "failed"]),
    products: z.int(),
    synced_at: z.string().nullable(),
    error: z.string().nullable(),
  }).nullable(),
});

export const listIntegrationsProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/integrations",
      summary: "The storefront and billing integrations with their state",
      description: "Both services, linked or not: the shop, the credential's last four (never " +
        "more), who linked it and when, the last test's outcome (`state`: `not_linked`, " +
        "`untested`, `connected`, `failing`) and, for the storefront, the catalogue's sync.",
    },
  })
  .input(z.object({}))
  .output(z.object({ data: z.array(integration) }))
  .query(async ({ ctx }) => ({
    data: await listWorkspaceIntegrations(ctx.deps.sql, ctx.auth!.workspace.id),
  }));

export const linkIntegrationProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/dashboard/integrations/{service}",
      summary: "Link or replace the storefront's or billing's credential",
      description: "Storefront: `shop` (the store's myshopify.com domain) and `credential` (its " +
        "Admin API access token). Billing: `credential` (a Stripe secret key `sk_…` or " +
        "restricted key `rk_…`; a publishable key is 422). Encrypted at rest; the answer and " +
        "every later one show the last four only. Linking a store queues its catalogue sync; " +
        "another shop's catalogue is removed.",
      requestExample: { shop: "acme.myshopify.com", credential: "shpat_0123456789abcdef" },
      notFound: false,
    },
    permission: "manage-workspace",
  })
  .input(z.object({ service, shop, credential }))
  .output(z.object({ data: integration }))
  .mutation(async ({ ctx, input }) => ({
    data: await linkWorkspaceIntegration(ctx.deps, ctx.auth!, input, {
      actor: actorOf(ctx.auth!, ctx.ip),
      now: ctx.now,
    }),
  }));

export const unlinkIntegrationProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/integrations/{service}",
      summary: "Unlink the storefront or billing (idempotent)",
      description: "The credential is deleted; a store's catalogue goes with it. Customer " +
        "context stops asking the service at once.",
      responseExample: { message: "The billing (Stripe) was unlinked." },
      notFound: false,
    },
    permission: "manage-workspace",
  })
  .input(z.object({ service }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    unlinkWorkspaceIntegration(ctx.deps, ctx.auth!, input.service, {
      actor: actorOf(ctx.auth!, ctx.ip),
      now: ctx.now,
    })
  );

export const testIntegrationProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/integrations/{service}/test",
      summary: "Test the connection: ask the service what it knows about itself",
      description: "Without a body, tests the stored credential and records the outcome as the " +
        "integration's state (404 when not linked). With `credential` (and `shop` for a " +
        "store), tests those values without saving them. Calls the service through the same " +
        "client and address policy as customer context. A failed test is a 200 with `ok: " +
        "false` and the reason in `message`.",
      requestExample: {},
    },
    permission: "manage-workspace",
    rateLimit: { name: "dashboard-integration-test", limit: 20, windowSeconds: 60, by: "user" },
  })
  .input(z.object({ service, shop, credential: credential.nullish() }))
  .output(z.object({
    service,
    tested: z.enum(["stored", "given"]),
    ok: z.boolean(),
    message: z.string(),
    found: z.object({
      name: z.string().nullable(),
      account: z.string().nullable(),
      mode: z.enum(["live", "test"]).nullable(),
      currency: z.string().nullable(),
    }).nullable(),
    warnings: z.array(z.string()),
    checked_at: z.string(),
  }))
  .mutation(({ ctx, input }) => testWorkspaceIntegration(ctx.deps, ctx.auth!, input, ctx.now));
