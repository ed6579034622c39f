/**
 * Widget bots as this instance last read them, by public key: what a visitor's
 * first message needs to start its reply before the database has answered
 * (known_bot_turn.ts). A kept copy is never trusted on its own: the turn's
 * statement checks the bot again and returns its `replyVersion`
 * (db/first_turn.ts), and a reply drafted from an outdated copy is dropped
 * and drafted again from the fresh row. So a copy may be stale; it is only
 * ever a head start, never a permission.
 *
 * The one thing the head start must not get wrong is a blocked visitor: they
 * never reach the AI, not even for a call cancelled a millisecond later. So a
 * copy carries the workspace's blocked visitors (read with the bot), and a
 * block or unblock anywhere in the workspace drops its copies on every
 * instance (the `conversation.updated` event with reason `block`); a
 * workspace with too many blocked visitors to list is not kept at all. A
 * knowledge change (`knowledge.changed`) drops its bot's copy too, so the
 * next question is not first drafted from the knowledge as it was.
 * Copies expire, and the map is bounded, so memory stays small with many bots.
 */
import type { ChatbotForReply } from "../../db/chatbots.ts";
import type { AppDeps } from "../deps.ts";

/** How long a copy is used before the bot is read again the full way. */
export const KNOWN_BOT_TTL_MS = 60_000;
/** Bots kept per instance; the oldest copy goes first. */
const MAX_KNOWN = 5_000;

export interface KnownBot
  extends Omit<ChatbotForReply, "replayMessageId" | "visitorBlocked" | "blockedVisitorIds"> {
  blockedVisitors: ReadonlySet<string>;
  readAt: number;
}

export interface KnownBots {
  /** The copy a visitor's first message may start from (none: read the full way). */
  get(publicKey: string, visitorId: string, now: number): KnownBot | undefined;
  remember(publicKey: string, found: ChatbotForReply, now: number): void;
  /** After a turn: the quota left as that turn's statement saw it. */
  noteHeadroom(publicKey: string, headroom: number | null): void;
  forget(publicKey: string): void;
}

/** One map per server (each test server has its own deps). */
const byServer = new WeakMap<object, KnownBots>();

export function knownBots(deps: Pick<AppDeps, "sql" | "bus">): KnownBots {
  let known = byServer.get(deps.sql);
  if (!known) {
    const created = createKnownBots();
    void deps.bus.on((event) => {
      if (event.type === "conversation.updated" && event.reason === "block") {
        created.forgetWorkspace(event.workspaceId);
      } else if (event.type === "knowledge.changed") {
        created.forgetBot(event.chatbotId as number);
      }
    });
    byServer.set(deps.sql, known = created);
  }
  return known;
}

function createKnownBots(): KnownBots & {
  forgetWorkspace(workspaceId: number): void;
  forgetBot(chatbotId: number): void;
} {
  const copies = new Map<string, KnownBot>();
  return {
    get(publicKey, visitorId, now) {
      const copy = copies.get(publicKey);
      if (!copy) return undefined;
      if (now - copy.readAt > KNOWN_BOT_TTL_MS) {
        copies.delete(publicKey);
        return undefined;
      }
      return copy.blockedVisitors.has(visitorId) ? undefined : copy;
    },
    remember(publicKey, found, now) {
      copies.delete(publicKey); // re-inserted last: the map's order is the copies' age
      const {
        replayMessageId: _replay,
        visitorBlocked: _blocked,
        blockedVisitorIds,
        ...copy
      } = found;
      if (!blockedVisitorIds) return; // not a widget lookup, or too many blocked to list
      copies.set(publicKey, { ...copy, blockedVisitors: new Set(blockedVisitorIds), readAt: now });
      if (copies.size > MAX_KNOWN) copies.delete(copies.keys().next().value!);
    },
    noteHeadroom(publicKey, headroom) {
      const copy = copies.get(publicKey);
      if (copy) copy.quotaHeadroom = headroom;
    },
    forget(publicKey) {
      copies.delete(publicKey);
    },
    forgetBot(chatbotId) {
      for (const [key, copy] of copies) if (copy.bot.id === chatbotId) copies.delete(key);
    },
    forgetWorkspace(workspaceId) {
      for (const [key, copy] of copies) {
        if (copy.bot.workspace_id === workspaceId) copies.delete(key);
      }
    },
  };
}
