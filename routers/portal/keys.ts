/** GET /api/portal/keys, PUT and DELETE /api/portal/keys/{provider}. */
import { z } from "zod";
import { portalProcedure } from "../trpc.ts";
import { listProviderKeyViews } from "../../domain/provider_keys/list_provider_keys.ts";
import { setProviderKey } from "../../domain/provider_keys/set_provider_key.ts";
import { removeProviderKey } from "../../domain/provider_keys/delete_provider_key.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";
import {
  apiKeyField,
  providerCode as provider,
  providerKeyList,
  storedProviderKey,
} from "../schemas/provider_keys.ts";

export const listKeys = portalProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/portal/keys",
      summary: "The eight providers, with whether a key is stored",
      description: "Only the last four characters of a stored key are ever shown.",
    },
  })
  .input(z.object({}))
  .output(providerKeyList)
  .query(async ({ ctx }) => ({
    data: await listProviderKeyViews(ctx.deps.sql, ctx.auth!.workspace.id),
  }));

export const putKey = portalProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/portal/keys/{provider}",
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

export const deleteKey = portalProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/portal/keys/{provider}",
      summary: "Remove the key of one provider",
      description: "Idempotent: removing a key that was never stored is 200 with a message " +
        "saying so. An unrecognised provider code is 422 on `provider`.",
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
