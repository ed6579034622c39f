/**
 * A bot's settings update, the one action behind both `PUT
 * /api/portal/chatbots/{key}` and the dashboard's bot and branding forms:
 * `name` always, the other texts when sent, an empty welcome message
 * restoring the default, branding fields merged over the stored ones (inside
 * PostgreSQL, so concurrent updates of different fields both survive; the
 * nested `proactive` object merged field by field). Provider and model are
 * fixed on the portal (a different value is refused, not ignored) and
 * editable by the dashboard's owners and administrators.
 */
import type { Sql } from "../../db/client.ts";
import { updateChatbotSettings } from "../../db/chatbots.ts";
import { type Branding, brandingOf } from "./branding.ts";
import { getChatbot } from "./get_chatbot.ts";
import { Invalid, NotFound } from "../errors.ts";
import { type PortalBotDetail, portalBotDetail } from "../portal/portal_chatbot_view.ts";
import { PROVIDER_CODES } from "../ai/providers.ts";

export interface ChatbotUpdate {
  name: string;
  persona?: string;
  instructions?: string;
  welcome_message?: string;
  is_active?: boolean;
  provider?: string;
  model?: string;
  /** Branding fields to change; the ones left out keep their stored value. */
  branding?: Partial<Omit<Branding, "proactive">> & {
    proactive?: Partial<Branding["proactive"]>;
    /** The widget's pre-chat form (dashboard only), stored whole beside the branding. */
    prechat?: { enabled: boolean; fields: { name: string; label?: string; required?: boolean }[] };
  };
}

export async function updateChatbot(
  sql: Sql,
  workspaceId: number,
  publicKey: string,
  input: ChatbotUpdate,
  rules: { providerAndModel: "fixed" | "editable" },
): Promise<PortalBotDetail> {
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
  const updated = await updateChatbotSettings(sql, workspaceId, publicKey, {
    name: input.name,
    persona: input.persona,
    instructions: input.instructions,
    welcomeMessage: welcome,
    isActive: input.is_active,
    provider: editable ? input.provider : undefined,
    model: editable ? input.model : undefined,
    brandingPatch: patch,
  });
  if (!updated) throw new NotFound("Chatbot not found.");
  return portalBotDetail(await getChatbot(sql, workspaceId, publicKey));
}
