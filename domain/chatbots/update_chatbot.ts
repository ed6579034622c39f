/**
 * A bot's settings update, the one action behind both `PUT
 * /api/portal/chatbots/{key}` and the dashboard's bot and branding forms:
 * `name` always, the other texts when sent, an empty welcome message
 * restoring the default, branding fields merged over the stored ones (inside
 * PostgreSQL, so concurrent updates of different fields both survive; the
 * nested `proactive` object merged field by field). Provider and model are
 * fixed on the portal (a different value is refused, not ignored) and
 * editable by the dashboard's owners and administrators.
 *
 * Turning `screen_share` off ends the bot's open screen shares in the same
 * transaction (`ended_by: turned_off`), and after commit tells both sides as
 * a stopped share is told (`screen_share.updated`), then publishes
 * `screen_share.turned_off` so every instance ends the bot's screen-channel
 * subscriptions at once (docs/agent-api.md#screen-sharing).
 *
 * The widget's allowed sites (dashboard only) are normalised and stored
 * whole; a changed list publishes `chatbot.sites_changed`, so every
 * instance's site check reads it again (docs/widget-api.md#allowed-sites).
 */
import type { AppDeps } from "../deps.ts";
import { updateChatbotSettings } from "../../db/chatbots.ts";
import { endScreenSharesOfBot } from "../../db/screen_shares.ts";
import { type Branding, brandingOf } from "./branding.ts";
import { getChatbot } from "./get_chatbot.ts";
import { Invalid, NotFound } from "../errors.ts";
import { type PortalBotDetail, portalBotDetail } from "../portal/portal_chatbot_view.ts";
import { PROVIDER_CODES } from "../ai/providers.ts";
import { type ParleyEvent, publishEvents } from "../events.ts";
import { screenShareView } from "../screen_share/screen_share_view.ts";
import { normaliseSites } from "../widget/site_rules.ts";

export interface ChatbotUpdate {
  name: string;
  persona?: string;
  instructions?: string;
  welcome_message?: string;
  is_active?: boolean;
  provider?: string;
  model?: string;
  /** The widget's allowed sites as the owner wrote them (dashboard only); empty allows any site. */
  allowed_origins?: string[];
  /** Branding fields to change; the ones left out keep their stored value. */
  branding?: Partial<Omit<Branding, "proactive">> & {
    proactive?: Partial<Branding["proactive"]>;
    /** The widget's pre-chat form (dashboard only), stored whole beside the branding. */
    prechat?: { enabled: boolean; fields: { name: string; label?: string; required?: boolean }[] };
  };
}

export async function updateChatbot(
  deps: Pick<AppDeps, "sql" | "bus" | "log" | "clock">,
  workspaceId: number,
  publicKey: string,
  input: ChatbotUpdate,
  rules: { providerAndModel: "fixed" | "editable" },
): Promise<PortalBotDetail> {
  const sql = deps.sql;
  const current = await getChatbot(sql, workspaceId, publicKey);
  const errors: Record<string, string[]> = {};
  if (rules.providerAndModel === "fixed") {
    if (input.provider !== undefined && input.provider !== current.provider) {
      errors.provider = ["The provider cannot be changed through the portal."];
    }
    if (input.model !== undefined && input.model !== current.model) {
      errors.model = ["The model cannot be changed through the portal."];
    }
  } else if (
    input.provider !== undefined && !(PROVIDER_CODES as readonly string[]).includes(input.provider)
  ) {
    errors.provider = ["The selected provider is invalid."];
  }
  let allowedOrigins: string[] | undefined;
  if (input.allowed_origins !== undefined) {
    const { sites, errors: siteErrors } = normaliseSites(input.allowed_origins);
    if (siteErrors.length) errors.allowed_origins = siteErrors;
    allowedOrigins = sites;
  }
  if (Object.keys(errors).length) throw new Invalid(Object.values(errors)[0]![0]!, errors);
  const patch: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(input.branding ?? {})) {
    if (value !== undefined) patch[field] = value;
  }
  if (input.branding?.proactive) {
    patch.proactive = { ...brandingOf(current.branding).proactive, ...input.branding.proactive };
  }
  const welcome = input.welcome_message === undefined
    ? undefined
    : input.welcome_message.trim() === ""
    ? null
    : input.welcome_message;
  const editable = rules.providerAndModel === "editable";
  const botId = Number(current.id);
  const turnsOff = patch.screen_share === false;
  const ended = await sql.begin(async (tx) => {
    const updated = await updateChatbotSettings(tx, workspaceId, publicKey, {
      name: input.name,
      persona: input.persona,
      instructions: input.instructions,
      welcomeMessage: welcome,
      isActive: input.is_active,
      provider: editable ? input.provider : undefined,
      model: editable ? input.model : undefined,
      brandingPatch: patch,
      allowedOrigins,
    });
    if (!updated) throw new NotFound("Chatbot not found.");
    return turnsOff ? await endScreenSharesOfBot(tx, workspaceId, botId, deps.clock()) : [];
  });
  const sitesChanged = allowedOrigins !== undefined &&
    allowedOrigins.join(" ") !== (current.allowed_origins ?? []).join(" ");
  if (sitesChanged) {
    await publishEvents(deps, [{
      type: "chatbot.sites_changed",
      workspaceId,
      chatbotId: botId,
      publicKey,
    }]);
  }
  if (turnsOff && (ended.length > 0 || brandingOf(current.branding).screen_share)) {
    // The shares' ends first, so a screen channel hears its share end before it is closed.
    const events: ParleyEvent[] = ended.map((row) => ({
      type: "screen_share.updated",
      workspaceId,
      conversationId: row.conversation_public_id,
      share: screenShareView(row),
    }));
    events.push({ type: "screen_share.turned_off", workspaceId, chatbotId: botId });
    await publishEvents(deps, events);
  }
  return portalBotDetail(await getChatbot(sql, workspaceId, publicKey));
}
