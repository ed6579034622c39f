/** The portal's shapes of a chatbot: list item and detail (SPEC Chatbot). */
import type { ChatbotWithCounts } from "../../db/chatbots.ts";
import { type Branding, brandingOf, DEFAULT_WELCOME_MESSAGE } from "../chatbots/branding.ts";

export interface PortalBotItem {
  public_key: string;
  name: string;
  role: string;
  provider: string;
  model: string;
  is_active: boolean;
  knowledge_sources: number;
  conversations: number;
}

export interface PortalBotDetail<B = Branding> extends PortalBotItem {
  persona: string;
  instructions: string;
  welcome_message: string;
  branding: B;
}

export function portalBotItem(b: ChatbotWithCounts): PortalBotItem {
  return {
    public_key: b.public_key,
    name: b.name,
    role: b.role,
    provider: b.provider,
    model: b.model,
    is_active: b.is_active,
    knowledge_sources: b.knowledge_sources,
    conversations: b.conversations,
  };
}

export function portalBotDetail(b: ChatbotWithCounts): PortalBotDetail {
  return {
    ...portalBotItem(b),
    persona: b.persona,
    instructions: b.instructions,
    // A null stored message means "the default"; the portal shows what visitors see.
    welcome_message: b.welcome_message ?? DEFAULT_WELCOME_MESSAGE,
    branding: brandingOf(b.branding),
  };
}
