/**
 * Turns domain events into realtime broadcasts (docs/realtime.md). It listens
 * on the event bus, which with Redis carries every instance's events to every
 * instance, so each instance serves its own sockets and nothing is sent
 * twice. A payload is loaded only when a socket here listens on its channel.
 */
import type { AppDeps } from "../deps.ts";
import type { Unsubscribe } from "../../kv/kv.ts";
import type { ParleyEvent } from "../events.ts";
import { channelName } from "./channels.ts";
import { widgetChannelFor } from "./widget_channel.ts";
import { conversationPayloads, messagePayload, notePayload } from "./event_payloads.ts";

type FeedDeps = Pick<AppDeps, "sql" | "bus" | "log" | "realtime" | "clock">;

export function startRealtimeFeed(deps: FeedDeps): Promise<Unsubscribe> {
  return deps.bus.on((event) => {
    deliver(deps, event as ParleyEvent).catch((err) =>
      deps.log.warn("realtime broadcast failed", { type: event.type, err: String(err) })
    );
  });
}

async function deliver(deps: FeedDeps, e: ParleyEvent): Promise<void> {
  const hub = deps.realtime;
  const workspace = channelName.workspace(e.workspaceId);
  switch (e.type) {
    case "conversation.created":
    case "conversation.updated": {
      if (e.type === "conversation.created") statsChanged(deps, e.workspaceId, "conversation");
      else if (e.reason === "resolve") statsChanged(deps, e.workspaceId, "resolved");
      const agentSide = [workspace, channelName.conversation(e.conversationId)]
        .filter((ch) => hub.hasSubscribers(ch));
      const widget = widgetChannel(deps, e.conversationId);
      const toWidget = hub.hasSubscribers(widget);
      if (!agentSide.length && !toWidget) return;
      const p = await conversationPayloads(deps, e.workspaceId, e.conversationId);
      if (!p) return;
      const row = e.type === "conversation.updated" ? { ...p.row, reason: e.reason } : p.row;
      for (const ch of agentSide) hub.broadcast(ch, e.type, row);
      if (toWidget) hub.broadcast(widget, "conversation.updated", p.widget);
      return;
    }
    case "message.created": {
      statsChanged(deps, e.workspaceId, "message");
      const agentSide = [workspace, channelName.conversation(e.conversationId)]
        .filter((ch) => hub.hasSubscribers(ch));
      // The widget streams its own AI replies; it hears agents' messages here.
      const widget = e.role === "agent" ? widgetChannel(deps, e.conversationId) : null;
      const toWidget = widget !== null && hub.hasSubscribers(widget);
      if (!agentSide.length && !toWidget) return;
      const p = messagePayload(e);
      for (const ch of agentSide) hub.broadcast(ch, "message.created", p.agent);
      if (toWidget) hub.broadcast(widget!, "message.created", p.widget);
      return;
    }
    case "note.created": {
      const ch = channelName.conversation(e.conversationId);
      if (!hub.hasSubscribers(ch)) return;
      const p = await notePayload(deps.sql, e.workspaceId, e.noteId);
      if (p) hub.broadcast(ch, "note.created", p);
      return;
    }
    case "handoff.requested":
      return hub.broadcast(workspace, "handoff.requested", {
        conversation_id: e.conversationId,
        chatbot_id: e.chatbotId,
      });
    case "visitor.seen":
      return hub.broadcast(workspace, "visitor.seen", {
        visitor_id: e.visitorId,
        chatbot_id: e.chatbotId,
        page_url: e.pageUrl,
        chat_open: e.chatOpen,
        arrived: e.arrived,
      });
    case "conversation.assigned":
      if (e.userId === null) return;
      return hub.broadcast(channelName.user(e.userId), "conversation.assigned", {
        conversation_id: e.conversationId,
        by_user_id: e.actorUserId,
      });
    case "token.revoked":
      return hub.endTokens(new Set([e.tokenId]));
    case "member.changed":
    case "screen_share.turned_off":
      // Who may join what changed: re-check this instance's subscriptions now, not at the next tick.
      return hub.recheckNow();
    case "contact.erased":
      // The visitor's widget forgets the conversation; agents' views drop it.
      for (const id of e.conversationIds) {
        const gone = { conversation_id: id };
        hub.endChannel(widgetChannel(deps, id), "conversation.erased", gone);
        hub.endChannel(channelName.conversation(id), "conversation.erased", gone);
        hub.endChannel(channelName.screen(id), "conversation.erased", gone);
        hub.broadcast(workspace, "conversation.erased", gone);
      }
      return;
    case "conversation.rated":
      return hub.broadcast(workspace, "conversation.rated", {
        conversation_id: e.conversationId,
        rating: e.rating,
      });
    case "knowledge.progress": {
      const ch = channelName.dashboard(e.workspaceId);
      if (!hub.hasSubscribers(ch)) return;
      return hub.broadcast(ch, "source.progress", {
        chatbot_id: e.chatbotId,
        source_id: e.sourceId,
        status: e.status,
        done: e.status === "ready" || e.status === "failed",
        pages_found: e.pages?.found ?? null,
        pages_indexed: e.pages?.indexed ?? null,
        pages_failed: e.pages?.failed ?? null,
        pages_skipped: e.pages?.skipped ?? null,
        chunk_count: e.chunkCount,
        error: e.error,
      });
    }
    case "knowledge.changed": {
      const ch = channelName.dashboard(e.workspaceId);
      if (!hub.hasSubscribers(ch)) return;
      return hub.broadcast(ch, "source.changed", {
        chatbot_id: e.chatbotId,
        source_id: e.sourceId,
        action: e.action,
      });
    }
    case "screen_share.updated": {
      const agent = { conversation_id: e.conversationId, screen_share: e.share };
      for (
        const ch of [
          channelName.conversation(e.conversationId),
          channelName.screen(e.conversationId),
        ]
      ) {
        if (hub.hasSubscribers(ch)) hub.broadcast(ch, "screen_share.updated", agent);
      }
      // The visitor hears only what the widget acts on: the share's id and state.
      const widget = widgetChannel(deps, e.conversationId);
      if (!hub.hasSubscribers(widget)) return;
      return hub.broadcast(widget, "screen_share.updated", {
        conversation_id: e.conversationId,
        screen_share: { id: e.share.id, state: e.share.state },
        resync: e.resync === true,
      });
    }
    case "screen_share.events": {
      const ch = channelName.screen(e.conversationId);
      if (!hub.hasSubscribers(ch)) return;
      return hub.broadcast(ch, "screen_share.events", {
        conversation_id: e.conversationId,
        screen_share_id: e.shareId,
        events: e.events,
      });
    }
    default:
      return;
  }
}

/**
 * The dashboard's overview counts messages and conversations: its channel
 * hears that they changed (not the content), and the overview reloads.
 */
function statsChanged(
  deps: FeedDeps,
  workspaceId: number,
  what: "message" | "conversation" | "resolved",
): void {
  const ch = channelName.dashboard(workspaceId);
  if (deps.realtime.hasSubscribers(ch)) deps.realtime.broadcast(ch, "stats.changed", { what });
}

function widgetChannel(deps: FeedDeps, conversationId: string): string {
  return widgetChannelFor(deps.realtime.credentials, conversationId);
}
