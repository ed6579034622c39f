/**
 * GET /api/dashboard/keys, PUT and DELETE /api/dashboard/keys/{provider}: the
 * eight providers' keys, with the portal's rules (encrypted at rest, only the
 * last four shown, delete idempotent, an unknown code 422 on `provider`).
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { listProviderKeyViews } from "../../domain/provider_keys/list_provider_keys.ts";
import { setProviderKey } from "../../domain/provider_keys/set_provider_key.ts";
import { serverRouting } from "../../domain/ai/server_routing.ts";
import { testProviderKey } from "../../domain/provider_keys/test_provider_key.ts";
import { removeProviderKey } from "../../domain/provider_keys/delete_provider_key.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";
import {
  apiKeyField,
  providerCode as provider,
  providerKeyList,
  storedProviderKey,
} from "../schemas/provider_keys.ts";

export const listKeys = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/keys",
      summary: "The eight providers, with whether a key is stored and its last four",
      description: "`server` says what the operator set for every workspace: `ai_base_url` " +
        "(every provider's calls go to the AI_BASE_URL server), `ai_api_key` (AI_API_KEY " +
        "answers for a provider with no stored key), and `note`, a sentence for the screen.",
    },
  })
  .input(z.object({}))
  .output(providerKeyList.extend({
    server: z.object({
      ai_base_url: z.boolean(),
      ai_api_key: z.boolean(),
      note: z.string().nullable(),
    }),
  }))
  .query(async ({ ctx }) => ({
    data: await listProviderKeyViews(ctx.deps.sql, ctx.auth!.workspace.id),
    server: serverRouting(ctx.deps.config),
  }));

export const putKey = dashboardProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/dashboard/keys/{provider}",
      summary: "Store or replace the key of one provider",
      description: "Encrypted at rest. An unrecognised provider code is 422 on `provider`.",
      notFound: false,
      requestExample: { api_key: "sk-live-4b1f9c2e7a" },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ provider, api_key: apiKeyField }))
  .output(storedProviderKey)
  .mutation(async ({ ctx, input }) => ({
    data: await setProviderKey(ctx.deps.sql, ctx.deps.appKey, ctx.auth!.workspace.id, {
      provider: input.provider,
      apiKey: input.api_key,
    }, { actor: actorOf(ctx.auth!, ctx.ip), now: ctx.now }),
  }));

export const deleteKey = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/keys/{provider}",
      summary: "Remove the key of one provider (idempotent)",
      notFound: false,
      responseExample: { message: "The OpenAI key was removed." },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ provider }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    removeProviderKey(ctx.deps.sql, ctx.auth!.workspace.id, input.provider, {
      actor: actorOf(ctx.auth!, ctx.ip),
      now: ctx.now,
    })
  );

export const testKey = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/keys/{provider}/test",
      summary: "Try a provider key with one minimal call; the outcome in words",
      description: "With `api_key`, that key (before saving it); without, the key that answers " +
        "for the workspace now (stored, else the server's AI_API_KEY or AI_BASE_URL). A refused " +
        "key or an unreachable provider is `ok: false` with a sentence, not an error status.",
      notFound: false,
      requestExample: { api_key: "sk-live-4b1f9c2e7a" },
      responseExample: { ok: true, message: "The key works." },
    },
    permission: "manage-workspace",
    rateLimit: { name: "dashboard-key-test", limit: 10, windowSeconds: 60, by: "user" },
  })
  .input(z.object({ provider, api_key: apiKeyField.optional() }))
  .output(z.object({ ok: z.boolean(), message: z.string() }))
  .mutation(({ ctx, input }) =>
    testProviderKey(ctx.deps, ctx.auth!.workspace.id, input.provider, input.api_key)
  );
