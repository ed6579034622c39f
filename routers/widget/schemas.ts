/** Zod pieces shared by the widget procedures and the stream, so limits match everywhere. */
import { z } from "zod";

/** The bot's public key from the path. */
export const keyField = z.string().min(1).max(255);
import { atMostChars } from "../schemas/text.ts";

/** Assigned by widget.js, kept in localStorage; SPEC: up to 100 characters. */
export const visitorIdField = z.string().trim().min(1).superRefine(atMostChars(100));
export const conversationIdField = z.uuid();

export const widgetMessageSchema = z.object({
  id: z.int(),
  role: z.enum(["visitor", "assistant", "agent"]),
  content: z.string(),
  at: z.string(),
});

/** `status`: bot, agent or closed; `handoff_state`: bot_active, handoff_pending, human_connected. */
export const conversationStatus = z.string().meta({ examples: ["bot"] });

export const conversationStateSchema = z.object({
  conversation_id: z.string(),
  status: conversationStatus,
  handoff_state: z.string(),
});
