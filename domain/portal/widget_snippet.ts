/**
 * The embed code for a workspace: a deferred script tag loading the widget
 * with the bot's public key, for the first active bot, else the newest one.
 */
import type { Executor } from "../../db/client.ts";
import { findSnippetBot } from "../../db/analytics.ts";
import { NotFound } from "../errors.ts";

function escapeAttribute(value: string): string {
  return value.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;")
    .replace(/>/g, "&gt;");
}

export async function widgetSnippet(
  sql: Executor,
  workspaceId: number,
  baseUrl: string,
): Promise<{ public_key: string; snippet: string }> {
  const bot = await findSnippetBot(sql, workspaceId);
  if (!bot) throw new NotFound("This workspace has no chatbot yet.");
  return { public_key: bot.public_key, snippet: snippetFor(baseUrl, bot.public_key) };
}

/** The script tag that embeds one bot's widget (the dashboard shows it per bot). */
export function snippetFor(baseUrl: string, publicKey: string): string {
  const src = escapeAttribute(`${baseUrl}/widget.js`);
  return `<script src="${src}" data-key="${escapeAttribute(publicKey)}" defer></script>`;
}
