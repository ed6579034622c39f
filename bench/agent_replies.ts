/**
 * What the reply benchmarks share: a conversation started through the widget
 * stream, and an agent's reply to it (its body doubling as its `client_id`).
 */
import { T } from "../tests/helpers/fixtures.ts";
import type { TestServer } from "../tests/helpers/test_server.ts";
import { freshIp, postStream } from "../tests/widget/widget_client.ts";

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
