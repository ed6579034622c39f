/** GET/PUT /api/portal/chatbots and /api/portal/chatbots/{key}. */
import { z } from "zod";
import { atMostChars, chars } from "../schemas/text.ts";
import { portalProcedure } from "../trpc.ts";
import { listChatbots } from "../../db/chatbots.ts";
import { getChatbot } from "../../domain/chatbots/get_chatbot.ts";
import { RECOMMEND_MODES, THEMES } from "../../domain/chatbots/branding.ts";
import { portalBotDetail, portalBotItem } from "../../domain/portal/portal_chatbot_view.ts";
import { updatePortalChatbot } from "../../domain/portal/update_portal_chatbot.ts";
import { brandingSchema } from "../schemas/branding.ts";

const item = z.object({
  public_key: z.string(),
  name: z.string(),
  role: z.string(),
  provider: z.string(),
  model: z.string(),
  is_active: z.boolean(),
  knowledge_sources: z.int(),
  conversations: z.int(),
});
const detailFields = {
  persona: z.string(),
  instructions: z.string(),
  welcome_message: z.string(),
};
const key = z.string().min(1).max(255);

export const listBots = portalProcedure
  .meta({
    openapi: { method: "GET", path: "/api/portal/chatbots", summary: "The workspace's bots" },
  })
  .input(z.object({}))
  .output(z.object({ data: z.array(item) }))
  .query(async ({ ctx }) => ({
    data: (await listChatbots(ctx.deps.sql, ctx.auth!.workspace.id)).map(portalBotItem),
  }));

export const showBot = portalProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/portal/chatbots/{key}",
      summary: "One bot with persona, instructions and branding",
    },
  })
  .input(z.object({ key }))
  .output(z.object({ data: item.extend({ ...detailFields, branding: brandingSchema }) }))
  .query(async ({ ctx, input }) => ({
    data: portalBotDetail(await getChatbot(ctx.deps.sql, ctx.auth!.workspace.id, input.key)),
  }));

export const updateBot = portalProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/portal/chatbots/{key}",
      summary: "Update a bot's name, texts, activity and branding",
      description: "Fields left out keep their value; `name` is required. `provider` and " +
        "`model` are fixed here: a value other than the bot's is a 422 naming the field.",
      requestExample: { name: "Acme Support", welcome_message: "Hi! How can we help?" },
    },
    permission: "manage-chatbots",
  })
  .input(z.object({
    key,
    name: z.string().trim().min(1).superRefine(atMostChars(120)).meta({ maxLength: 120 }),
    persona: chars(2000).optional(),
    instructions: chars(4000).optional(),
    welcome_message: chars(300).optional(),
    is_active: z.boolean().optional(),
    // A refinement (not .regex) so the door keeps this sentence instead of "a valid regex".
    primary_color: z.string().max(9).refine(
      (s) => /^#(?:[0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/.test(s),
      "The primary color field must be a hex colour such as #4f46e5.",
    ).optional(),
    launcher_text: chars(40).optional(),
    position: z.enum(["left", "right"]).optional(),
    theme: z.enum(THEMES).optional(),
    // Product recommendations in the widget (docs/answering.md).
    recommend_mode: z.enum(RECOMMEND_MODES).optional(),
    provider: z.string().max(64).optional(),
    model: z.string().max(120).optional(),
  }))
  .output(z.object({
    data: item.extend({
      ...detailFields,
      branding: z.object({
        primary_color: z.string(),
        launcher_text: z.string(),
        position: z.string(),
        theme: z.string(),
      }),
    }),
  }))
  .mutation(async ({ ctx, input }) => {
    const { key, ...update } = input;
    return {
      data: await updatePortalChatbot(ctx.deps, ctx.auth!.workspace.id, key, update),
    };
  });
