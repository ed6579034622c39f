/**
 * The socket server's re-check of the subscriptions it holds: a private or
 * presence subscription lasts while broadcasting/auth would still sign it
 * for the token that asked (channel_rules.ts). Two queries however many are
 * held: the tokens (still valid? whose, in which role?), then the
 * conversations named by conversation and screen channels (in which
 * workspace, screen sharing on?). The hub runs it every
 * REALTIME_RECHECK_SECONDS, and at once on every instance when a member's
 * role or standing changes or a bot's screen sharing is turned off
 * (realtime_feed.ts).
 */
import type { Executor } from "../../db/client.ts";
import { tokenHolders } from "../../db/tokens.ts";
import { conversationChannelFacts } from "../../db/conversations.ts";
import { parseChannel } from "./channels.ts";
import { type ConversationFacts, conversationOf, mayJoin } from "./channel_rules.ts";

/** One subscription as the hub holds it: the channel and the token that authorised it. */
export interface HeldSubscription {
  tokenId: number;
  channel: string;
}

/**
 * `ok`: it stays. `token`: the token itself is no longer valid (revoked,
 * expired, suspended, its holder removed). `channel`: the token is good but
 * would no longer be signed for this channel.
 */
export type RecheckVerdict = "ok" | "token" | "channel";

/** One verdict per subscription, in the order given. */
export async function recheckSubscriptions(
  sql: Executor,
  held: HeldSubscription[],
  now: Date,
): Promise<RecheckVerdict[]> {
  if (held.length === 0) return [];
  const tokenIds = [...new Set(held.map((h) => h.tokenId))];
  const holders = new Map((await tokenHolders(sql, tokenIds, now)).map((r) => [r.id, r]));
  const refs = held.map((h) => parseChannel(h.channel));
  const named = new Set<string>();
  refs.forEach((ref, i) => {
    const id = conversationOf(ref);
    if (id !== null && holders.has(held[i]!.tokenId)) named.add(id);
  });
  const facts = new Map<string, ConversationFacts>(
    (await conversationChannelFacts(sql, [...named])).map((c) => [
      c.public_id,
      { workspaceId: c.workspace_id, screenShare: c.screen_share },
    ]),
  );
  return held.map((h, i): RecheckVerdict => {
    const holder = holders.get(h.tokenId);
    if (!holder) return "token";
    const ref = refs[i] ?? null;
    const id = conversationOf(ref);
    const conversation = id === null ? null : facts.get(id) ?? null;
    const who = {
      ability: holder.ability,
      role: holder.role,
      userId: holder.user_id,
      workspaceId: holder.workspace_id,
    };
    return mayJoin(who, ref, conversation) ? "ok" : "channel";
  });
}
