/**
 * Create a chatbot in a workspace. The operator is not bound by the plan's
 * bot limit (as in Chatwoot's super-admin console); the public key is
 * generated unless given, and a taken key is a Conflict.
 */
import { findChatbotByKey, upsertChatbot } from "../../db/chatbots.ts";
import { PROVIDER_CODES } from "../ai/providers.ts";
import { randomSecret } from "../auth/secrets.ts";
import { Conflict, Invalid } from "../errors.ts";
import { type AdminDeps, requireWorkspace } from "./admin_deps.ts";

export interface CreatedChatbot {
  id: number;
  workspace: string;
  public_key: string;
  name: string;
  provider: string;
  model: string;
  is_active: boolean;
}

export async function createChatbot(
  deps: AdminDeps,
  input: { workspace: string; name: string; publicKey?: string; provider?: string; model?: string },
): Promise<CreatedChatbot> {
  const name = input.name.trim();
  if (!name || name.length > 120) {
    throw Invalid.field("name", "The name field is required (up to 120 characters).");
  }
  const publicKey = input.publicKey ?? `bot_${randomSecret(12).replace(/[^A-Za-z0-9]/g, "")}`;
  if (!/^[A-Za-z0-9_-]{4,64}$/.test(publicKey)) {
    throw Invalid.field("key", "The key may hold A-Z, a-z, 0-9, _ and - (4 to 64 characters).");
  }
  const provider = input.provider ?? "provider_1";
  if (!(PROVIDER_CODES as readonly string[]).includes(provider)) {
    throw Invalid.field("provider", `The provider must be one of ${PROVIDER_CODES.join(", ")}.`);
  }
  const ws = await requireWorkspace(deps.sql, input.workspace);
  if (await findChatbotByKey(deps.sql, ws.id, publicKey)) {
    throw new Conflict(`A chatbot with key "${publicKey}" already exists.`);
  }
  let bot;
  try {
    bot = await upsertChatbot(deps.sql, ws.id, {
      name,
      publicKey,
      role: "support",
      provider,
      model: input.model ?? "gpt-4o-mini",
      isActive: true,
      persona: "",
      instructions: "",
      welcomeMessage: null,
      branding: {},
    });
  } catch {
    // upsertChatbot refuses a key owned by another workspace.
    throw new Conflict(`A chatbot with key "${publicKey}" already exists.`);
  }
  return {
    id: bot.id,
    workspace: ws.slug,
    public_key: bot.public_key,
    name: bot.name,
    provider: bot.provider,
    model: bot.model,
    is_active: bot.is_active,
  };
}
