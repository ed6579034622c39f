/**
 * The REST API tokens panel (SPEC: settings tokens, created in the dashboard):
 * GET/POST /api/dashboard/api-tokens, DELETE /api/dashboard/api-tokens/{token}.
 */
import { z } from "zod";
import { dashboardProcedure } from "../trpc.ts";
import { listApiTokens } from "../../domain/api_tokens/list_api_tokens.ts";
import { createApiToken } from "../../domain/api_tokens/create_api_token.ts";
import { revokeApiToken } from "../../domain/api_tokens/revoke_api_token.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";

const apiToken = z.object({
  id: z.int(),
  name: z.string(),
  created_at: z.string(),
  last_used_at: z.string().nullable(),
  expires_at: z.string(),
  state: z.enum(["active", "expired", "revoked"]),
  expires_soon: z.boolean(),
});

export const listTokens = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/api-tokens",
      summary: "Your settings tokens (ability `api`), newest first, with their state",
      description: "`expires_soon`: active and expiring within 7 days; create its " +
        "replacement (same name) before it expires, then revoke it.",
    },
    permission: "manage-workspace",
  })
  .input(z.object({}))
  .output(z.object({ data: z.array(apiToken) }))
  .query(async ({ ctx }) => ({ data: await listApiTokens(ctx.deps.sql, ctx.auth!, ctx.now) }));

export const createTokenProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/api-tokens",
      summary: "Create a settings token for /api/v1; its value is in this answer only",
      description: "201 with `token` (`<id>|<secret>`, shown once, stored only as a hash) and " +
        "the token's row. At most 20 active tokens per account: the 21st is 422 on `name`. " +
        "Valid 30 days.",
      requestExample: { name: "CRM sync" },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ name: z.string().trim().min(1).max(120) }))
  .output(z.object({ token: z.string(), data: apiToken }))
  .mutation(async ({ ctx, input }) => {
    ctx.response.status = 201;
    return await createApiToken(
      ctx.deps.sql,
      ctx.auth!,
      input.name,
      ctx.now,
      actorOf(ctx.auth!, ctx.ip),
    );
  });

export const revokeTokenProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/api-tokens/{token}",
      summary: "Revoke one of your settings tokens; its next request answers 401",
      responseExample: { message: "Token revoked." },
    },
    permission: "manage-workspace",
  })
  .input(z.object({ token: z.coerce.number().int().min(1) }))
  .output(z.object({ message: z.string() }))
  .mutation(async ({ ctx, input }) => {
    await revokeApiToken(ctx.deps.sql, ctx.auth!, input.token, ctx.now, actorOf(ctx.auth!, ctx.ip));
    return { message: "Token revoked." };
  });
