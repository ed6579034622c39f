/**
 * Outbound webhooks end to end, against a local receiver that checks every
 * request with the `standardwebhooks` package: endpoint management, every
 * event kind with its payload and order, the attempt log, redelivery under
 * the same webhook-id, and secret rotation with its overlap.
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
const OWNER = T.acme.owner.portal;
const receiver = startWebhookReceiver();
const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: standardSeed(),
  env: {
    ...WIDGET_ENV,
    AI_BASE_URL: fake.baseUrl,
    WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
    WEBHOOK_POLL_MS: "50",
  },
});
const portal = (method: string, path: string, body?: unknown, token: string = OWNER) =>
  http(s.url, method, `/api/portal${path}`, { token, body });
const agent = (path: string, body?: unknown) =>
  http(s.url, "POST", `/api/agent${path}`, { token: T.acme.owner.agent, body });

async function createEndpoint(url: string, events: string[]) {
  const r = await portal("POST", "/webhooks", { url, events, description: "test" });
  assertEquals(r.status, 201, r.text);
  return r.body.data as { id: number; secret: string };
}

/** Wait until `hits` holds one of each type (or time out), and return them by type. */
async function collect(types: string[], hits: () => ReceivedWebhook[], timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  const have = () => new Set(hits().map((h) => h.json.type as string));
  while (!types.every((t) => have().has(t))) {
    if (Date.now() > deadline) throw new Error(`missing ${types.filter((t) => !have().has(t))}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return hits();
}

Deno.test("outbound webhooks", serverTestOptions, async (t) => {
  let endpoint = { id: 0, secret: "" };

  await t.step("endpoints: created with a secret shown once, validated, guarded", async () => {
    endpoint = await createEndpoint(`${receiver.url}/hook`, [
      "conversation.created",
      "message.created",
      "conversation.handoff_requested",
      "conversation.assigned",
      "conversation.resolved",
      "conversation.reopened",
      "conversation.rated",
      "lead.captured",
    ]);
    assert(/^whsec_[A-Za-z0-9+/=]{40,}$/.test(endpoint.secret));
    const list = await portal("GET", "/webhooks");
    assertEquals(list.status, 200);
    assertEquals(list.body.data.length, 1);
    assertEquals("secret" in list.body.data[0], false);
    assert(!list.text.includes(endpoint.secret.slice(6)));
    const bad = await portal("POST", "/webhooks", { url: "http://example.com/x", events: [] });
    assertEquals(bad.status, 422);
    assert(bad.body.errors.url);
    const badType = await portal("POST", "/webhooks", {
      url: "https://example.com/x",
      events: ["nope"],
    });
    assertEquals([badType.status, Object.keys(badType.body.errors)], [422, ["events"]]);
    const agentRole = await portal("GET", "/webhooks", undefined, T.acme.agent.portal);
    assertEquals(agentRole.status, 403);
    assertEquals((await portal("GET", `/webhooks/${endpoint.id + 1000}`)).status, 404);
  });

  let conversation = "";
  await t.step("every event kind arrives, signed, with its payload", async () => {
    const visitor = `v_wh_${crypto.randomUUID().slice(0, 8)}`;
    const r = await postStream(s.url, KEY, { visitor_id: visitor, message: "Hello" });
    assertEquals(r.status, 200);
    conversation = r.events[0]!.data.conversation_id as string;
    const handoff = await http(s.url, "POST", `/widget/${KEY}/handoff`, {
      body: { visitor_id: visitor, conversation_id: conversation, email: "lead@example.com" },
      headers: { "x-forwarded-for": "203.0.113.7" },
    });
    assertEquals(handoff.status, 200, handoff.text);
    const me = await http(s.url, "GET", "/api/agent/me", { token: T.acme.owner.agent });
    const ownerId = me.body.user.id as number;
    assertEquals(
      (await agent(`/conversations/${conversation}/assign`, { user_id: ownerId })).status,
      200,
    );
    assertEquals(
      (await agent(`/conversations/${conversation}/reply`, { body: "On it." })).status,
      200,
    );
    assertEquals((await agent(`/conversations/${conversation}/resolve`)).status, 200);
    const rating = await http(s.url, "POST", `/widget/${KEY}/rating`, {
      body: { visitor_id: visitor, conversation_id: conversation, rating: 5, comment: "Great" },
      headers: { "x-forwarded-for": "203.0.113.8" },
    });
    assertEquals(rating.status, 200, rating.text);
    assertEquals((await agent(`/conversations/${conversation}/reopen`)).status, 200);

    await collect([
      "conversation.created",
      "message.created",
      "conversation.handoff_requested",
      "lead.captured",
      "conversation.assigned",
      "conversation.resolved",
      "conversation.rated",
      "conversation.reopened",
    ], () => receiver.received);
    await new Promise((r) => setTimeout(r, 300)); // nothing more should arrive
    const mine = receiver.received.filter((h) =>
      (h.json.data as { conversation: { id: string } }).conversation.id === conversation
    );
    for (const hit of mine) {
      const verified = verifyWebhook(endpoint.secret, hit) as Record<string, unknown>;
      assertEquals(verified.id, hit.id);
      assertEquals(hit.json.version, 1);
      assert(/^msg_[0-9a-f]{32}$/.test(hit.id));
    }
    // Each event once, in the order it happened.
    assertEquals(new Set(mine.map((h) => h.id)).size, mine.length);
    assertEquals(mine.map((h) => `${h.json.type}`), [
      "conversation.created",
      "message.created",
      "message.created",
      "conversation.handoff_requested",
      "lead.captured",
      "conversation.assigned",
      "message.created",
      "conversation.resolved",
      "conversation.rated",
      "conversation.reopened",
    ]);
    const byType = (type: string) => mine.filter((h) => h.json.type === type);
    // deno-lint-ignore no-explicit-any
    const data = (h: ReceivedWebhook) => h.json.data as Record<string, any>;
    const created = data(byType("conversation.created")[0]!);
    assertEquals(created.conversation!.chatbot_key, KEY);
    assertEquals((created.conversation!.visitor as { id: string }).id, visitor);
    assertEquals(
      byType("message.created").map((h) => [data(h).message!.role, data(h).message!.content]),
      [["visitor", "Hello"], ["assistant", "Happy to help."], ["agent", "On it."]],
    );
    assertEquals(data(byType("lead.captured")[0]!).lead, { email: "lead@example.com" });
    assertEquals(data(byType("conversation.assigned")[0]!).assigned_user_id, ownerId);
    assertEquals(data(byType("conversation.rated")[0]!).rating, { score: 5, comment: "Great" });
    assertEquals(data(byType("conversation.reopened")[0]!).by, "agent");
    assert(typeof byType("conversation.resolved")[0]!.json.timestamp === "string");
  });

  await t.step(
    "every attempt is logged; a delivery can be sent again, same webhook-id",
    async () => {
      const log = await portal("GET", `/webhooks/${endpoint.id}/deliveries`);
      assertEquals(log.status, 200);
      const first = log.body.data.at(-1);
      assertEquals(first.status, "succeeded");
      assertEquals(first.attempt_log[0].status_code, 204);
      assertEquals(first.attempt_log[0].outcome, "succeeded");
      const before = receiver.received.length;
      const again = await portal(
        "POST",
        `/webhooks/${endpoint.id}/deliveries/${first.id}/redeliver`,
      );
      assertEquals(again.status, 200, again.text);
      const hits = await receiver.waitFor(before + 1);
      assertEquals(hits.at(-1)!.id, first.event_id);
      verifyWebhook(endpoint.secret, hits.at(-1)!);
    },
  );

  await t.step(
    "rotation: both secrets sign during the overlap, only the new one after",
    async () => {
      const rotated = await portal("POST", `/webhooks/${endpoint.id}/rotate-secret`, {
        overlap_hours: 1,
      });
      assertEquals(rotated.status, 200, rotated.text);
      const fresh = rotated.body.data.secret as string;
      assert(fresh !== endpoint.secret);
      const log = await portal("GET", `/webhooks/${endpoint.id}/deliveries`);
      const before = receiver.received.length;
      await portal("POST", `/webhooks/${endpoint.id}/deliveries/${log.body.data[0].id}/redeliver`);
      const hit = (await receiver.waitFor(before + 1)).at(-1)!;
      verifyWebhook(fresh, hit);
      verifyWebhook(endpoint.secret, hit);
      assertEquals(hit.signature.split(" ").length, 2);
      await portal("POST", `/webhooks/${endpoint.id}/rotate-secret`, { overlap_hours: 0 });
      const last = await portal("POST", `/webhooks/${endpoint.id}/rotate-secret`, {
        overlap_hours: 0,
      });
      const newest = last.body.data.secret as string;
      await portal("POST", `/webhooks/${endpoint.id}/deliveries/${log.body.data[0].id}/redeliver`);
      const after = (await receiver.waitFor(before + 2)).at(-1)!;
      verifyWebhook(newest, after);
      assertEquals(after.signature.split(" ").length, 1);
      let refused = false;
      try {
        verifyWebhook(fresh, after);
      } catch {
        refused = true;
      }
      assert(refused, "the retired secret must no longer verify");
      endpoint.secret = newest;
    },
  );
});

Deno.test("stop the webhook events test server", serverTestOptions, async () => {
  await s.stop();
  await Promise.all([receiver.stop(), fake.close()]);
});
