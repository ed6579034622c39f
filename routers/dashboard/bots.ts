/**
 * The dashboard's bots: GET/POST /api/dashboard/chatbots and GET/PUT/DELETE
 * /api/dashboard/chatbots/{key}. Unlike the portal, owners and administrators
 * change provider and model here; the update is the portal's own action.
 */
import { z } from "zod";
import { atMostChars, chars } from "../schemas/text.ts";
import { dashboardProcedure } from "../trpc.ts";
import { brandingSchema } from "../schemas/branding.ts";
import { brandingInput } from "./branding_input.ts";
import { listChatbots } from "../../db/chatbots.ts";
import { getChatbot } from "../../domain/chatbots/get_chatbot.ts";
import { updateChatbot } from "../../domain/chatbots/update_chatbot.ts";
import { BOT_LANGUAGES } from "../../domain/chatbots/languages.ts";
import { PROVIDER_CODES } from "../../domain/ai/providers.ts";
import { portalBotDetail, portalBotItem } from "../../domain/portal/portal_chatbot_view.ts";
import { snippetFor } from "../../domain/portal/widget_snippet.ts";
import { prechatOf } from "../../domain/widget/build_widget_config.ts";
import { createBot } from "../../domain/dashboard/create_bot.ts";
import { deleteBot } from "../../domain/dashboard/delete_bot.ts";
import { MAX_ALLOWED_SITES } from "../../domain/widget/site_rules.ts";
import { actorOf } from "../../domain/audit/record_audit.ts";

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
const detail = item.extend({
  persona: z.string(),
  instructions: z.string(),
  welcome_message: z.string(),
  language: z.string(),
  branding: brandingSchema,
  /** The widget's pre-chat form as the widget will show it. */
  prechat: z.object({
    enabled: z.boolean(),
    fields: z.array(z.object({
      name: z.enum(["name", "email", "phone"]),
      label: z.string(),
      type: z.string(),
      required: z.boolean(),
    })),
  }),
  snippet: z.string(),
  /** Where the widget may run (docs/widget-api.md#allowed-sites); empty: any site. */
  allowed_origins: z.array(z.string()),
});
const key = z.string().min(1).max(255);
const name = z.string().trim().min(1).superRefine(atMostChars(120)).meta({ maxLength: 120 });
const provider = z.enum(PROVIDER_CODES);
const model = z.string().trim().min(1).max(120);

type Row = Awaited<ReturnType<typeof getChatbot>>;
const withSnippet = (row: Row, baseUrl: string) => ({
  ...portalBotDetail(row),
  language: row.language,
  prechat: prechatOf(row.branding?.prechat),
  snippet: snippetFor(baseUrl, row.public_key),
  allowed_origins: row.allowed_origins,
});

export const listBots = dashboardProcedure
  .meta({
    openapi: { method: "GET", path: "/api/dashboard/chatbots", summary: "The workspace's bots" },
  })
  .input(z.object({}))
  .output(z.object({ data: z.array(item) }))
  .query(async ({ ctx }) => ({
    data: (await listChatbots(ctx.deps.sql, ctx.auth!.workspace.id)).map(portalBotItem),
  }));

export const showBot = dashboardProcedure
  .meta({
    openapi: {
      method: "GET",
      path: "/api/dashboard/chatbots/{key}",
      summary: "One bot with its texts, language, full branding and embed snippet",
    },
  })
  .input(z.object({ key }))
  .output(z.object({ data: detail }))
  .query(async ({ ctx, input }) => ({
    data: withSnippet(
      await getChatbot(ctx.deps.sql, ctx.auth!.workspace.id, input.key),
      ctx.deps.config.baseUrl,
    ),
  }));

export const createBotProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "POST",
      path: "/api/dashboard/chatbots",
      summary: "Create a bot, within the plan's bot limit",
      description: "201 with the bot. At the plan's `chatbot_limit`: 422 on `name`, naming " +
        "the plan and its limit. `language` decides how its knowledge is indexed and is fixed " +
        "once the bot exists.",
      created: true,
      requestExample: { name: "Returns helper", provider: "provider_1", model: "gpt-4o-mini" },
    },
    permission: "manage-chatbots",
  })
  .input(z.object({
    name,
    provider: provider.default("provider_1"),
    model: model.default("gpt-4o-mini"),
    persona: chars(2000).default(""),
    instructions: chars(4000).default(""),
    welcome_message: chars(300).default(""),
    language: z.enum(BOT_LANGUAGES).default("english"),
  }))
  .output(z.object({ data: detail }))
  .mutation(async ({ ctx, input }) => {
    const wid = ctx.auth!.workspace.id;
    const created = await createBot(ctx.deps.sql, wid, input);
    ctx.response.status = 201;
    return {
      data: withSnippet(
        await getChatbot(ctx.deps.sql, wid, created.public_key),
        ctx.deps.config.baseUrl,
      ),
    };
  });

export const updateBot = dashboardProcedure
  .meta({
    openapi: {
      method: "PUT",
      path: "/api/dashboard/chatbots/{key}",
      summary: "Update a bot's texts, provider, model, activity and branding",
      description: "The portal's update (`PUT /api/portal/chatbots/{key}`) with its merge rules " +
        "(fields left out keep their value; branding merged field by field; an empty " +
        "`welcome_message` restores the default), plus `provider` and `model`, and every " +
        "branding field under `branding`, and `allowed_origins`: the sites where the widget may " +
        "run (docs/widget-api.md#allowed-sites; an empty list allows any site, left out keeps " +
        "the list). 422 on `allowed_origins` names the entry that is not a site.",
      requestExample: { name: "Acme Support", branding: { primary_color: "#0f766e" } },
    },
    permission: "manage-chatbots",
  })
  .input(z.object({
    key,
    name,
    persona: chars(2000).optional(),
    instructions: chars(4000).optional(),
    welcome_message: chars(300).optional(),
    is_active: z.boolean().optional(),
    provider: provider.optional(),
    model: model.optional(),
    branding: brandingInput.optional(),
    allowed_origins: z.array(z.string().max(300)).max(MAX_ALLOWED_SITES).optional(),
  }))
  .output(z.object({ data: detail }))
  .mutation(async ({ ctx, input }) => {
    const { key, ...update } = input;
    const wid = ctx.auth!.workspace.id;
    await updateChatbot(ctx.deps, wid, key, update, { providerAndModel: "editable" });
    return { data: withSnippet(await getChatbot(ctx.deps.sql, wid, key), ctx.deps.config.baseUrl) };
  });

export const deleteBotProcedure = dashboardProcedure
  .meta({
    openapi: {
      method: "DELETE",
      path: "/api/dashboard/chatbots/{key}",
      summary: "Delete a bot with its conversations and knowledge",
      description: "Irreversible: the bot's conversations (with their messages) and its " +
        "knowledge sources (with everything indexed from them) are deleted with it. The " +
        "month's usage keeps the messages it counted.",
      responseExample: { message: "The bot, its conversations and its knowledge were deleted." },
    },
    permission: "manage-chatbots",
  })
  .input(z.object({ key }))
  .output(z.object({ message: z.string() }))
  .mutation(({ ctx, input }) =>
    deleteBot(ctx.deps, ctx.auth!.workspace.id, input.key, {
      actor: actorOf(ctx.auth!, ctx.ip),
      now: ctx.now,
    })
  );
