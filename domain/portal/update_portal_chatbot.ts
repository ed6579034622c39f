/**
 * The portal's bot settings update: `name` always, the other texts when sent,
 * an empty welcome message restoring the default, branding fields merged over
 * the stored ones. Provider and model are fixed here: sending a different
 * value is refused rather than silently ignored.
 */
import type { Sql } from "../../db/client.ts";
import { updateChatbotSettings } from "../../db/chatbots.ts";
import type { Branding } from "../chatbots/branding.ts";
import { getChatbot } from "../chatbots/get_chatbot.ts";
import { Invalid, NotFound } from "../errors.ts";
import { type PortalBotDetail, portalBotDetail } from "./portal_chatbot_view.ts";

export interface PortalBotUpdate {
  name: string;
  persona?: string;
  instructions?: string;
  welcome_message?: string;
  is_active?: boolean;
  primary_color?: string;
  launcher_text?: string;
  position?: Branding["position"];
  theme?: Branding["theme"];
  recommend_mode?: Branding["recommend_mode"];
  provider?: string;
  model?: string;
}

export type ReducedBranding = Pick<
  Branding,
  "primary_color" | "launcher_text" | "position" | "theme"
>;

export async function updatePortalChatbot(
  sql: Sql,
  workspaceId: number,
  publicKey: string,
  input: PortalBotUpdate,
): Promise<PortalBotDetail<ReducedBranding>> {
  const current = await getChatbot(sql, workspaceId, publicKey);
  const fixed: Record<string, string[]> = {};
  if (input.provider !== undefined && input.provider !== current.provider) {
    fixed.provider = ["The provider cannot be changed through the portal."];
  }
  if (input.model !== undefined && input.model !== current.model) {
    fixed.model = ["The model cannot be changed through the portal."];
  }
  if (Object.keys(fixed).length) {
    throw new Invalid(Object.values(fixed)[0]![0]!, fixed);
  }
  const patch: Record<string, unknown> = {};
  for (
    const field of [
      "primary_color",
      "launcher_text",
      "position",
      "theme",
      "recommend_mode",
    ] as const
  ) {
    if (input[field] !== undefined) patch[field] = input[field];
  }
  const welcome = input.welcome_message === undefined
    ? undefined
    : input.welcome_message.trim() === ""
    ? null
    : input.welcome_message;
  const updated = await updateChatbotSettings(sql, workspaceId, publicKey, {
    name: input.name,
    persona: input.persona,
    instructions: input.instructions,
    welcomeMessage: welcome,
    isActive: input.is_active,
    brandingPatch: patch,
  });
  if (!updated) throw new NotFound("Chatbot not found.");
  const detail = portalBotDetail(await getChatbot(sql, workspaceId, publicKey));
  const { primary_color, launcher_text, position, theme } = detail.branding;
  return { ...detail, branding: { primary_color, launcher_text, position, theme } };
}
