/** The allowed sites of a bot's widget, read by the widget endpoints' site check. */
import type { Executor } from "./client.ts";

/** The bot's allowed sites; empty when it has none or no bot has that key. */
export async function findAllowedSites(sql: Executor, publicKey: string): Promise<string[]> {
  const [row] = await sql<{ allowed_origins: string[] }[]>`
    SELECT allowed_origins FROM chatbots WHERE public_key = ${publicKey}`;
  return row?.allowed_origins ?? [];
}
