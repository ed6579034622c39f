/** GET /api/v1/chatbots and GET /api/v1/chatbots/{key}. */
import { z } from "zod";
import { apiProcedure } from "../trpc.ts";
import { listChatbots } from "../../db/chatbots.ts";
import { getChatbot } from "../../domain/chatbots/get_chatbot.ts";
import { brandingOf } from "../../domain/chatbots/branding.ts";
import { brandingSchema } from "../schemas/branding.ts";

const listItem = z.object({
  id: z.int(),
  public_key: z.string(),
  name: z.string(),
  provider: z.string(),
  model: z.string(),
  is_active: z.boolean(),
});

export const listBots = apiProcedure
  .meta({
    openapi: { method: "GET", path: "/api/v1/chatbots", summary: "The workspace's bots" },
  })
  .input(z.object({}))
  .output(z.object({ data: z.array(listItem) }))
  .query(async ({ ctx }) => {
    const bots = await listChatbots(ctx.deps.sql, ctx.auth!.workspace.id);
    return {
      data: bots.map((b) => ({
        id: b.id,
        public_key: b.public_key,
        name: b.name,
        provider: b.provider,
        model: b.model,
        is_active: b.is_active,
      })),
    };
  });

export const showBot = apiProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/v1/chatbots/{key}",
      summary: "One bot with its branding and knowledge count",
    },
  })
  .input(z.object({ key: z.string().max(255) }))
  .output(z.object({
    data: z.object({
      public_key: z.string(),
      name: z.string(),
      provider: z.string(),
      model: z.string(),
      is_active: z.boolean(),
      knowledge_sources: z.int(),
      branding: brandingSchema,
    }),
  }))
  .query(async ({ ctx, input }) => {
    const b = await getChatbot(ctx.deps.sql, ctx.auth!.workspace.id, input.key);
    return {
      data: {
        public_key: b.public_key,
        name: b.name,
        provider: b.provider,
        model: b.model,
        is_active: b.is_active,
        knowledge_sources: b.knowledge_sources,
        branding: brandingOf(b.branding),
      },
    };
  });
