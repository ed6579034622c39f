/**
 * The portal's bot settings update: the shared bot update
 * (domain/chatbots/update_chatbot.ts) with provider and model fixed and the
 * four branding fields the portal takes, answering with the reduced branding.
 */
import type { AppDeps } from "../deps.ts";
import type { Branding } from "../chatbots/branding.ts";
import { updateChatbot } from "../chatbots/update_chatbot.ts";
import type { PortalBotDetail } from "./portal_chatbot_view.ts";

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
  deps: Pick<AppDeps, "sql" | "bus" | "log" | "clock">,
  workspaceId: number,
  publicKey: string,
  input: PortalBotUpdate,
): Promise<PortalBotDetail<ReducedBranding>> {
  const { primary_color, launcher_text, position, theme, recommend_mode, ...rest } = input;
  const detail = await updateChatbot(deps, workspaceId, publicKey, {
    ...rest,
    branding: { primary_color, launcher_text, position, theme, recommend_mode },
  }, { providerAndModel: "fixed" });
  const b = detail.branding;
  return {
    ...detail,
    branding: {
      primary_color: b.primary_color,
      launcher_text: b.launcher_text,
      position: b.position,
      theme: b.theme,
    },
  };
}
