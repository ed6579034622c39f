/**
 * The domain events other parts react to (realtime broadcast, push and e-mail
 * alerts, analytics). A domain action publishes them after its transaction
 * commits, never from a router; with Redis every instance's subscribers see
 * every event. Ids are the public ones (conversation UUID) plus the numeric
 * message, note and chatbot ids subscribers load by.
 */
import type { AppDeps } from "./deps.ts";
import type { ScreenShareView } from "./screen_share/screen_share_view.ts";
import { recordEventPublished } from "./observability/metrics.ts";
import { inSpan, tracingOn } from "./observability/tracing.ts";

/** Why a conversation's inbox row changed. */
export type UpdateReason =
  | "takeover"
  | "release"
  | "resolve"
  | "reopen"
  | "reply"
  | "assign"
  | "tags"
  | "watch"
  | "block"
  | "read"
  | "visitor_reset"
  | "handoff_requested"
  | "visitor_email"
  | "invite"
  | "summary"
  | "revenue"
  | "ai_failed";

export type ParleyEvent =
  | { type: "conversation.created"; workspaceId: number; conversationId: string; chatbotId: number }
  | {
    type: "conversation.updated";
    workspaceId: number;
    conversationId: string;
    reason: UpdateReason;
    /** The agent whose action it was, when one acted. */
    actorUserId?: number | null;
  }
  | {
    type: "message.created";
    workspaceId: number;
    conversationId: string;
    messageId: number;
    role: "visitor" | "assistant" | "agent";
    /** The message itself, so subscribers need not read it back (one query less per broadcast). */
    content: string;
    /** When it was stored (ISO). */
    createdAt: string;
  }
  | { type: "note.created"; workspaceId: number; conversationId: string; noteId: number }
  | {
    type: "handoff.requested";
    workspaceId: number;
    conversationId: string;
    chatbotId: number;
    /** When this request began (ISO): one alert per request across instances. */
    requestedAt?: string | null;
  }
  | {
    type: "visitor.seen";
    workspaceId: number;
    chatbotId: number;
    visitorId: string;
    pageUrl: string | null;
    chatOpen: boolean;
    arrived: boolean;
  }
  | {
    type: "conversation.assigned";
    workspaceId: number;
    conversationId: string;
    userId: number | null;
    actorUserId: number;
  }
  | {
    type: "conversation.rated";
    workspaceId: number;
    conversationId: string;
    rating: number;
  }
  | {
    /** A visitor left an e-mail address in the widget (a lead for the team). */
    type: "lead.captured";
    workspaceId: number;
    conversationId: string;
    email: string;
  }
  | {
    /**
     * A contact (or one conversation) was erased: every instance ends the
     * sockets' subscriptions to these conversations and drops cached data.
     * Public ids only: nothing that was in them.
     */
    type: "contact.erased";
    workspaceId: number;
    erasureId: string;
    conversationIds: string[];
    visitors: { chatbotKey: string; visitorId: string }[];
  }
  | {
    /** A workspace's webhook endpoints changed: instances forget what they cached. */
    type: "webhook_endpoints.changed";
    workspaceId: number;
  }
  | {
    type: "knowledge.changed";
    workspaceId: number;
    chatbotId: number;
    sourceId: number;
    action: string;
  }
  | {
    /**
     * A storefront or billing credential was linked (or replaced) or unlinked
     * from the dashboard: the record of who changed what, for subscribers
     * that keep one. The credential itself never travels.
     */
    type: "integration.changed";
    workspaceId: number;
    service: "storefront" | "billing";
    action: "linked" | "unlinked";
    actorUserId: number;
  }
  | {
    /**
     * A top-level knowledge source's indexing moved on: its state changed, or
     * a crawl found, indexed, failed or skipped pages (at most every 250 ms
     * per crawl). For the dashboard's live knowledge list.
     */
    type: "knowledge.progress";
    workspaceId: number;
    chatbotId: number;
    sourceId: number;
    status: "pending" | "processing" | "ready" | "failed";
    /** Crawl counts of a url source; null for other types. */
    pages: { found: number; indexed: number; failed: number; skipped: number } | null;
    chunkCount: number;
    /** Why the last attempt failed (a retry pending, or failed for good). */
    error: string | null;
  }
  /** A token was revoked (sign-out): the realtime subscriptions it authorised end on every instance. */
  | { type: "token.revoked"; workspaceId: number; tokenId: number }
  | {
    /**
     * A teammate's role changed, or they were suspended, restored or removed:
     * every instance re-checks its realtime subscriptions at once, so those
     * the member may no longer join end (docs/realtime.md).
     */
    type: "member.changed";
    workspaceId: number;
    userId: number;
    change: "role" | "suspended" | "restored" | "removed";
  }
  | {
    /**
     * A bot's branding `screen_share` was turned off: its open shares have
     * ended (each with its own `screen_share.updated`), and every instance
     * re-checks its subscriptions at once, ending the bot's screen channels.
     */
    type: "screen_share.turned_off";
    workspaceId: number;
    chatbotId: number;
  }
  | {
    /** A bot's allowed sites changed: every instance drops its copy of the list (site_gate.ts). */
    type: "chatbot.sites_changed";
    workspaceId: number;
    chatbotId: number;
    publicKey: string;
  }
  | {
    /** A screen share was requested, answered or ended; `resync`: the agent asks for a new full view. */
    type: "screen_share.updated";
    workspaceId: number;
    conversationId: string;
    share: ScreenShareView;
    resync?: boolean;
  }
  | {
    /** A batch of the visitor's page recording (rrweb events), relayed to the agents, never stored. */
    type: "screen_share.events";
    workspaceId: number;
    conversationId: string;
    shareId: number;
    /** Each event as its JSON text. */
    events: string[];
  };

/**
 * Publish after commit. A lost event must not fail an action that already
 * happened, so a failure is logged, not thrown. Each event gets an `eventId`
 * here, the same on every instance, so subscribers that record events
 * durably (outbound webhooks) record each one once.
 */
export async function publishEvent(
  deps: Pick<AppDeps, "bus" | "log">,
  event: ParleyEvent,
): Promise<void> {
  recordEventPublished(event.type);
  const emit = () =>
    deps.bus.emit({ ...event, eventId: crypto.randomUUID() }).catch((err) =>
      deps.log.warn("event not delivered", { type: event.type, err: String(err) })
    );
  await (tracingOn ? inSpan("event.publish", { "parley.event.type": event.type }, emit) : emit());
}

/**
 * Publish several at once, in this order: one Redis round trip for all of
 * them instead of one each before the action can answer.
 */
export async function publishEvents(
  deps: Pick<AppDeps, "bus" | "log">,
  events: ParleyEvent[],
): Promise<void> {
  await Promise.all(events.map((event) => publishEvent(deps, event)));
}
