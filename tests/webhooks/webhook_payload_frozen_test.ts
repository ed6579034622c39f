/**
 * A webhook event's body is fixed when the event is recorded: it describes the
 * conversation as it was then, and every endpoint, every retry and a manual
 * redelivery send the same bytes, however late the first attempt comes. Here
 * the visitor writes again (reopening the conversation) right after an agent
 * resolved it, while the deliveries of `conversation.resolved` are still
 * waiting: behind an endpoint's earlier event that is being retried or is
 * still in flight, or (one healthy endpoint) behind the embedded database's
 * delivery pacing, which waits up to 250 ms for a moment with no request.
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import {
  type ReceivedWebhook,
  startWebhookReceiver,
  verifyWebhook,
} from "../helpers/webhook_receiver.ts";

const KEY = "acme-helper";
const healthy = startWebhookReceiver();
const failing = startWebhookReceiver();
const single = startWebhookReceiver();
const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: standardSeed(),
  env: {
    ...WIDGET_ENV,
    AI_BASE_URL: fake.baseUrl,
    WEBHOOK_ALLOW_HOSTS: [healthy, failing, single].map((r) => `127.0.0.1:${r.port}`).join(","),
    WEBHOOK_POLL_MS: "50",
    WEBHOOK_RETRY_BASE_MS: "300",
  },
});
const portal = (method: string, path: string, body?: unknown) =>
  http(s.url, method, `/api/portal${path}`, { token: T.acme.owner.portal, body });
const agent = (method: string, path: string) =>
  http(s.url, method, `/api/agent${path}`, { token: T.acme.owner.agent });

/** Endpoints to remove after a step, passed or not, so the next starts alone. */
const cleanup: number[] = [];
async function removeEndpoints(): Promise<void> {
  for (const id of cleanup.splice(0)) await portal("DELETE", `/webhooks/${id}`);
}

async function createEndpoint(url: string, events: string[]) {
  const r = await portal("POST", "/webhooks", { url, events });
  assertEquals(r.status, 201, r.text);
  return r.body.data as { id: number; secret: string };
}

/** The hits of one type for one conversation, once there are `count` of them (15 s at most). */
async function hitsOf(
  receiver: { received: ReceivedWebhook[] },
  type: string,
  conversation: string,
  count: number,
): Promise<ReceivedWebhook[]> {
  const mine = () =>
    receiver.received.filter((h) =>
      h.json.type === type &&
      (h.json.data as { conversation: { id: string } }).conversation.id === conversation
    );
  const deadline = Date.now() + 15_000;
  while (mine().length < count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} ${type}, got ${mine().length}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return mine();
}

/** A `conversation.resolved` body describes the conversation as it was resolved. */
function assertResolvedAsRecorded(hit: ReceivedWebhook, conversation: string): void {
  const data = hit.json.data as {
    conversation: { id: string; status: string; handoff_state: string };
    resolved_at: string | null;
  };
  assertEquals(data.conversation.id, conversation);
  assertEquals(data.conversation.status, "closed", hit.body);
  assert(typeof data.resolved_at === "string", `resolved_at is null: ${hit.body}`);
  assert(!Number.isNaN(Date.parse(data.resolved_at!)), hit.body);
}

/** The visitor's first message: a new conversation's public id. */
async function startConversation(visitor: string): Promise<string> {
  const r = await postStream(s.url, KEY, { visitor_id: visitor, message: "Hello" });
  assertEquals(r.status, 200, r.text);
  return r.events[0]!.data.conversation_id as string;
}

/** The agent resolves, then the visitor writes again at once (the conversation reopens). */
async function resolveThenReopen(visitor: string, conversation: string): Promise<number> {
  const resolved = await agent("POST", `/conversations/${conversation}/resolve`);
  assertEquals(resolved.status, 200, resolved.text);
  const resolvedAt = performance.now();
  const again = postStream(s.url, KEY, {
    visitor_id: visitor,
    conversation_id: conversation,
    message: "One more thing",
  });
  const writtenAfter = performance.now() - resolvedAt;
  assertEquals((await again).status, 200);
  const view = await agent("GET", `/conversations/${conversation}`);
  assertEquals(view.body.active.status, "bot", view.text);
  return writtenAfter;
}

/**
 * A request the server is handling until `release`: its body is sent in two
 * parts, the second only then (an invalid endpoint, answered 422).
 */
function holdRequest(): { release(): Promise<void> } {
  const encoder = new TextEncoder();
  let send!: ReadableStreamDefaultController<Uint8Array>;
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (send = c) });
  send.enqueue(encoder.encode('{"url": "not a url", '));
  const answer = fetch(`${s.url}/api/portal/webhooks`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${T.acme.owner.portal}`,
      "content-type": "application/json",
    },
    body,
  });
  return {
    async release() {
      send.enqueue(encoder.encode('"events": []}'));
      send.close();
      const res = await answer;
      assertEquals(res.status, 422, await res.text());
    },
  };
}

Deno.test("webhook payloads are fixed when recorded", serverTestOptions, async (t) => {
  await t.step(
    "two endpoints, one retrying, one busy: both get the resolve as it was, same bytes",
    async () => {
      // The healthy endpoint is still answering the conversation's first event when
      // the conversation is resolved and reopened; it answers (204) once the visitor
      // has written again. The failing one answers 500 to every event's first attempt.
      let release = () => {};
      const busy = new Promise<void>((r) => release = r);
      healthy.respond = async (hit) => {
        if (hit.json.type === "conversation.created") await busy;
        return new Response(null, { status: 204 });
      };
      const tried = new Set<string>();
      failing.respond = (hit) => {
        const first = !tried.has(hit.id);
        tried.add(hit.id);
        return new Response(first ? "boom" : null, { status: first ? 500 : 200 });
      };
      const events = ["conversation.created", "conversation.resolved"];
      const a = await createEndpoint(`${healthy.url}/a`, events);
      const b = await createEndpoint(`${failing.url}/b`, events);
      cleanup.push(a.id, b.id);

      const visitor = `v_fz_${crypto.randomUUID().slice(0, 8)}`;
      const conversation = await startConversation(visitor);
      try {
        await resolveThenReopen(visitor, conversation);
      } finally {
        release();
      }

      const [atA] = await hitsOf(healthy, "conversation.resolved", conversation, 1);
      const atB = await hitsOf(failing, "conversation.resolved", conversation, 2);
      verifyWebhook(a.secret, atA!);
      for (const hit of atB) verifyWebhook(b.secret, hit);
      for (const hit of [atA!, ...atB]) {
        assertResolvedAsRecorded(hit, conversation);
        assertEquals(hit.id, atA!.id);
        assertEquals(hit.body, atA!.body, "every endpoint and every retry: the same bytes");
      }

      // A manual redelivery, after the reopen, sends the same bytes again.
      const log = await portal("GET", `/webhooks/${a.id}/deliveries`);
      const delivery = (log.body.data as { id: number; event_id: string }[])
        .find((d) => d.event_id === atA!.id)!;
      const before = healthy.received.length;
      const again = await portal("POST", `/webhooks/${a.id}/deliveries/${delivery.id}/redeliver`);
      assertEquals(again.status, 200, again.text);
      const redelivered = (await healthy.waitFor(before + 1)).at(-1)!;
      verifyWebhook(a.secret, redelivered);
      assertEquals(redelivered.id, atA!.id);
      assertEquals(redelivered.body, atA!.body);
    },
  );
  await removeEndpoints();

  await t.step(
    "one healthy endpoint, the visitor writing within 250 ms of the resolve",
    async () => {
      const ep = await createEndpoint(`${single.url}/c`, ["conversation.resolved"]);
      cleanup.push(ep.id);
      const visitor = `v_fz_${crypto.randomUUID().slice(0, 8)}`;
      const conversation = await startConversation(visitor);
      // The server is handling another request (a slow upload) when the resolve is
      // recorded: on the embedded database the delivery waits for a quiet moment,
      // up to 250 ms before each of its statements.
      const busy = holdRequest();
      let writtenAfter: number;
      try {
        writtenAfter = await resolveThenReopen(visitor, conversation);
      } finally {
        await busy.release();
      }
      assert(writtenAfter < 250, `the visitor wrote ${writtenAfter} ms after the resolve`);
      const [hit] = await hitsOf(single, "conversation.resolved", conversation, 1);
      verifyWebhook(ep.secret, hit!);
      assertResolvedAsRecorded(hit!, conversation);
    },
  );
  await removeEndpoints();

  await t.step(
    "an event recorded before its conversation was captured is rendered as before",
    async () => {
      const ep = await createEndpoint(`${single.url}/d`, ["conversation.resolved"]);
      cleanup.push(ep.id);
      const visitor = `v_fz_${crypto.randomUUID().slice(0, 8)}`;
      const conversation = await startConversation(visitor);
      const resolved = await agent("POST", `/conversations/${conversation}/resolve`);
      assertEquals(resolved.status, 200, resolved.text);
      await hitsOf(single, "conversation.resolved", conversation, 1);
      // A row as the previous version wrote it (no `conversation` column value),
      // written behind the API's back: its first attempt reads the conversation.
      const legacyId = `msg_${crypto.randomUUID().replaceAll("-", "")}`;
      await s.deps.sql`
        WITH e AS (
          INSERT INTO webhook_events (public_id, workspace_id, type, dedupe_key, source, created_at)
          SELECT ${legacyId}, c.workspace_id, 'conversation.resolved', ${legacyId},
                 jsonb_build_object('type', 'conversation.updated', 'reason', 'resolve',
                                    'workspaceId', c.workspace_id, 'conversationId', c.public_id),
                 now()
            FROM conversations c WHERE c.public_id = ${conversation}
          RETURNING id, workspace_id)
        INSERT INTO webhook_deliveries (workspace_id, event_id, endpoint_id, ordering_key,
                                        next_attempt_at, window_started_at, created_at, updated_at)
        SELECT workspace_id, id, ${ep.id}, ${conversation}, now(), now(), now(), now() FROM e`;
      const hits = await hitsOf(single, "conversation.resolved", conversation, 2);
      const legacy = hits.find((h) => h.id === legacyId)!;
      verifyWebhook(ep.secret, legacy);
      assertResolvedAsRecorded(legacy, conversation);
      const data = (h: ReceivedWebhook) => h.json.data as Record<string, unknown>;
      assertEquals(data(legacy).conversation, data(hits[0]!).conversation);
    },
  );
  await removeEndpoints();
});

Deno.test("stop the frozen payload test server", serverTestOptions, async () => {
  await s.stop();
  await Promise.all([healthy.stop(), failing.stop(), single.stop(), fake.close()]);
});
