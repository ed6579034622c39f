/**
 * What the reply benchmarks share: a conversation started through the widget
 * stream, and an agent's reply to it (its body doubling as its `client_id`).
 */
import { T } from "../tests/helpers/fixtures.ts";
import type { TestServer } from "../tests/helpers/test_server.ts";
import { freshIp, postStream } from "../tests/widget/widget_client.ts";
import { connected, type Pusher, subscribe } from "../tests/realtime/pusher_helpers.ts";

export const AGENT = T.acme.agent.agent;

/** A new conversation of `visitor` with acme's bot; its public id. */
export async function startConversation(s: TestServer, visitor: string): Promise<string> {
  const res = await postStream(
    s.url,
    "acme-helper",
    { visitor_id: visitor, message: "Hi" },
    freshIp(),
  );
  const meta = res.events.find((e) => e.event === "meta");
  if (!meta) throw new Error(`no conversation: ${res.status}`);
  return meta.data.conversation_id as string;
}

export function reply(s: TestServer, conversation: string, body: string): Promise<Response> {
  return fetch(`${s.url}/api/agent/conversations/${conversation}/reply`, {
    method: "POST",
    headers: { authorization: `Bearer ${AGENT}`, "content-type": "application/json" },
    body: JSON.stringify({ body, client_id: body }),
  });
}

/** What `watchReplies` gives: the agent's own profile, and when each message body is heard. */
export interface ReplyWatch {
  me: { id: number; company: { id: number } };
  /** Resolves when a `message.created` with this exact body reaches the socket (its time). */
  heard(body: string): Promise<number>;
}

/** Subscribes `watcher` (connected here) to the agent's workspace channel. */
export async function watchReplies(s: TestServer, watcher: Pusher): Promise<ReplyWatch> {
  await connected(watcher);
  const me = await (await fetch(`${s.url}/api/agent/me`, {
    headers: { authorization: `Bearer ${AGENT}` },
  })).json();
  const sub = await subscribe(watcher, `private-workspace.${me.company.id}`);
  if (!sub.ok) throw new Error("subscription refused");
  const waiting = new Map<string, (at: number) => void>();
  sub.channel.bind("message.created", (d: { message: { content: string } }) => {
    waiting.get(d.message.content)?.(performance.now());
  });
  return {
    me,
    heard: (body) =>
      new Promise<number>((resolve) =>
        waiting.set(body, (at) => {
          waiting.delete(body);
          resolve(at);
        })
      ),
  };
}
