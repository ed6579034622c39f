/**
 * A visitor's conversation with a shared screen, driven over HTTP as the
 * widget and an agent drive it (tests/realtime/screen_share_channel_test.ts
 * says each call's rules): open a conversation, turn the bot's flag on, ask,
 * accept, and send batches of the page.
 */
import { assertEquals } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { freshIp, postStream } from "../widget/widget_client.ts";

export interface ShareEvent {
  conversation_id: string;
  screen_share: { id: number; state: string; ended_by?: string | null };
  resync?: boolean;
}

export function screenShareDriver(url: string, bot = "acme-helper") {
  const widget = (path: string, body: Record<string, unknown>) =>
    http(url, "POST", `/widget/${bot}${path}`, { body, headers: freshIp() });
  return {
    /** A new conversation of `visitor`; its public id. */
    async open(visitor: string): Promise<string> {
      const r = await postStream(url, bot, { visitor_id: visitor, message: "Hi" });
      assertEquals(r.status, 200);
      return r.events[0]!.data.conversation_id as string;
    },
    /** The widget channel's name, from the visitor's heartbeat. */
    async widgetChannel(conversation: string, visitor: string): Promise<string> {
      const hb = await widget("/heartbeat", {
        visitor_id: visitor,
        conversation_id: conversation,
        chat_open: true,
      });
      assertEquals(hb.status, 200);
      return hb.body.conversation.realtime_channel as string;
    },
    heartbeat: (conversation: string, visitor: string) =>
      widget("/heartbeat", { visitor_id: visitor, conversation_id: conversation, chat_open: true }),
    /** The dashboard's bot form turning screen sharing on or off (an owner's dashboard token). */
    setFlag: (token: string, on: boolean) =>
      http(url, "PUT", `/api/dashboard/chatbots/${bot}`, {
        token,
        body: { name: "Acme Helper", branding: { screen_share: on } },
      }),
    request: (conversation: string, token: string) =>
      http(url, "POST", `/api/agent/conversations/${conversation}/screen-share`, { token }),
    status: (conversation: string, token: string) =>
      http(url, "GET", `/api/agent/conversations/${conversation}/screen-share`, { token }),
    answer: (conversation: string, visitor: string, action: string) =>
      widget("/screen-share", { visitor_id: visitor, conversation_id: conversation, action }),
    /** One batch of the page (one rrweb event, marked `n`). */
    send: (conversation: string, visitor: string, n: number) =>
      widget("/screen-share/events", {
        visitor_id: visitor,
        conversation_id: conversation,
        events: [JSON.stringify({ type: 3, timestamp: Date.now(), data: { n } })],
      }),
  };
}

/** Resolves with the first `screen_share.updated` on `channel` in `state` (earlier states are skipped). */
export function shareReaches(
  channel: {
    bind(e: string, fn: (d: ShareEvent) => void): unknown;
    unbind(e: string, fn: (d: ShareEvent) => void): unknown;
  },
  state: string,
  ms = 5000,
): Promise<ShareEvent> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      channel.unbind("screen_share.updated", on);
      reject(new Error(`no screen_share.updated reaching ${state} within ${ms} ms`));
    }, ms);
    const on = (d: ShareEvent) => {
      if (d.screen_share.state !== state) return;
      clearTimeout(timer);
      channel.unbind("screen_share.updated", on);
      resolve(d);
    };
    channel.bind("screen_share.updated", on);
  });
}
