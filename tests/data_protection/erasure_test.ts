/**
 * Erasure and export of one person's data (docs/data-protection.md), through
 * the integration API: a contact with every kind of record (AI and agent
 * replies, a note, a tag, a rating, a lead e-mail, queued e-mail alerts, a
 * webhook delivery, a screen share, a visitor row) is exported, then erased
 * by e-mail; a full dump of the database then holds neither the contact's
 * address, nor its name, nor a sentence it wrote. Another contact of the same
 * workspace and one of another workspace are untouched, the month's usage
 * stays, the audit log counts the rows and the `contact.erased` webhook
 * carries public ids only.
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startSmtpSink } from "../helpers/smtp_sink.ts";
import { startWebhookReceiver } from "../helpers/webhook_receiver.ts";
import { dumpDatabase } from "../helpers/database_dump.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { waitUntil } from "../helpers/wait.ts";
import { nextEvent, type Pusher, pusherClient, subscribe } from "../realtime/pusher_helpers.ts";

const KEY = "acme-helper";
const NAME = "Quentin Marbleton";
const EMAIL_A = "quentin.marbleton@example.org";
const SENTENCE = "My parcel to Zanzibar Lane never arrived";
const B = {
  name: "Beatrix Other",
  email: "beatrix@example.org",
  says: "Where is invoice ninety nine",
};
const C = {
  name: "Globex Person",
  email: "gperson@example.org",
  says: "Globex question about pumps",
};

const fake = startFakeAi({ reply: "Happy to help." });
const smtp = startSmtpSink();
const receiver = startWebhookReceiver();
const s = await startTestServer({
  seed: standardSeed(),
  env: {
    ...WIDGET_ENV,
    AI_BASE_URL: fake.baseUrl,
    VAPID_GENERATE: "0",
    SMTP_URL: smtp.url,
    MAIL_FROM: "Parley Alerts <alerts@parley.test>",
    // The e-mail alerts stay queued for the whole test.
    EMAIL_BATCH_SECONDS: "3600",
    WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
    WEBHOOK_POLL_MS: "50",
  },
});
const agent = (method: string, path: string, body?: unknown) =>
  http(s.url, method, `/api/agent${path}`, { token: T.acme.owner.agent, body: body ?? {} });
const v1 = (path: string, body: unknown, token: string = T.acme.owner.api) =>
  http(s.url, "POST", `/api/v1${path}`, { token, body });
const widget = (key: string, path: string, body: unknown) =>
  http(s.url, "POST", `/widget/${key}${path}`, { body, headers: freshIp() });

async function chat(
  key: string,
  visitor: string,
  who: { name: string; email: string },
  says: string,
) {
  const r = await postStream(s.url, key, {
    visitor_id: visitor,
    message: says,
    meta: { visitor: who },
  });
  assertEquals(r.status, 200, r.text);
  return r.events[0]!.data.conversation_id as string;
}

Deno.test("erasure and export of one person's data", serverTestOptions, async (t) => {
  let socket: Pusher | null = null;
  try {
    const hook = await http(s.url, "POST", "/api/portal/webhooks", {
      token: T.acme.owner.portal,
      body: {
        url: `${receiver.url}/hook`,
        events: ["message.created", "lead.captured", "conversation.rated", "contact.erased"],
      },
    });
    assertEquals(hook.status, 201, hook.text);
    await http(s.url, "PATCH", "/api/agent/notifications/preferences", {
      token: T.acme.owner.agent,
      body: { email_enabled: true },
    });
    const flag = await http(s.url, "PUT", `/api/dashboard/chatbots/${KEY}`, {
      token: await dashboardToken(),
      body: { name: "Acme Helper", branding: { screen_share: true } },
    });
    assertEquals(flag.status, 200, flag.text);

    // Contact A: every kind of record.
    const visitorA = "v_erase_a";
    const hb = await widget(KEY, "/heartbeat", {
      visitor_id: visitorA,
      chat_open: true,
      page_url: "https://acme.test/orders?name=Quentin%20Marbleton",
      page_title: "Orders of Quentin Marbleton",
    });
    assertEquals(hb.status, 200, hb.text);
    const a = await chat(KEY, visitorA, { name: NAME, email: EMAIL_A }, SENTENCE);
    const lead = await widget(KEY, "/handoff", {
      visitor_id: visitorA,
      conversation_id: a,
      email: EMAIL_A,
    });
    assertEquals(lead.status, 200, lead.text);
    assertEquals((await agent("POST", `/conversations/${a}/takeover`)).status, 200);
    const again = await postStream(s.url, KEY, {
      visitor_id: visitorA,
      conversation_id: a,
      message: `${SENTENCE}, again`,
    });
    assertEquals(again.status, 200, again.text);
    assertEquals(
      (await agent("POST", `/conversations/${a}/reply`, {
        body: `Sorry ${NAME}, we will look into it.`,
      })).status,
      200,
    );
    assertEquals(
      (await agent("POST", `/conversations/${a}/notes`, {
        body: `${NAME} called twice about Zanzibar Lane`,
      })).status,
      200,
    );
    const tags = await http(s.url, "GET", "/api/agent/tags", { token: T.acme.owner.agent });
    const tagId = tags.body.tags[0].id as number;
    assertEquals((await agent("POST", `/conversations/${a}/tags`, { tag_id: tagId })).status, 200);
    const share = await agent("POST", `/conversations/${a}/screen-share`);
    assert(share.status === 200 || share.status === 201, share.text);
    assertEquals((await agent("POST", `/conversations/${a}/resolve`)).status, 200);
    const rated = await widget(KEY, "/rating", {
      visitor_id: visitorA,
      conversation_id: a,
      rating: 2,
      comment: `${NAME} is still waiting`,
    });
    assertEquals(rated.status, 200, rated.text);

    // B in the same workspace, C in another.
    const b = await chat(KEY, "v_erase_b", B, B.says);
    const c = await chat("globex-bot", "v_erase_c", C, C.says);

    await t.step("a webhook delivery and a queued e-mail alert hold the contact", async () => {
      await waitUntil(
        () => receiver.received.some((h) => h.body.includes(SENTENCE)),
        "a delivery",
        15_000,
      );
      const queued = await s.deps.sql`SELECT count(*)::int AS n FROM notification_email_items`;
      assert(queued[0]!.n > 0, "an e-mail alert is queued");
      const dump = await dumpDatabase(s);
      for (const needle of [EMAIL_A, NAME, SENTENCE]) assert(dump.includes(needle), needle);
    });

    const usageBefore = await s.deps.sql`SELECT messages_used FROM usage_counters ORDER BY 1`;

    await t.step("export: everything erasure would delete, as JSON", async () => {
      const r = await v1("/contacts/export", { email: EMAIL_A.toUpperCase() });
      assertEquals(r.status, 200, r.text);
      const data = r.body.data;
      assertEquals(data.format, "parley.contact_export");
      assertEquals(data.conversations.map((x: { public_id: string }) => x.public_id), [a]);
      const text = JSON.stringify(data);
      for (const needle of [EMAIL_A, NAME, SENTENCE, "Happy to help.", "is still waiting"]) {
        assert(text.includes(needle), needle);
      }
      const conv = data.conversations[0];
      assertEquals(conv.notes.length, 1);
      assertEquals(conv.tags.length, 1);
      assertEquals(conv.screen_shares.length, 1);
      assert(conv.messages.some((m: { role: string }) => m.role === "assistant"));
      assert(conv.messages.some((m: { role: string }) => m.role === "agent"));
      assertEquals(data.visitors.length, 1);
      assert(data.webhook_events.length > 0);
      assert(data.notification_email_items.length > 0);
      assert(!text.includes(B.email) && !text.includes(C.email));
    });

    await t.step("only owners and administrators, only their workspace", async () => {
      assertEquals((await v1("/contacts/erase", { email: EMAIL_A }, T.acme.agent.api)).status, 403);
      assertEquals((await v1("/contacts/erase", {})).status, 422);
      const both = await v1("/contacts/erase", { email: EMAIL_A, user_id: "x" });
      assertEquals(both.status, 422);
      const other = await v1("/contacts/erase", { email: EMAIL_A }, T.globex.owner.api);
      assertEquals(other.status, 200, other.text);
      assertEquals(other.body.data.conversations, []);
    });

    let erased: Promise<{ conversation_id: string }> | null = null;
    await t.step("the visitor's widget listens on its conversation's channel", async () => {
      const beat = await widget(KEY, "/heartbeat", {
        visitor_id: visitorA,
        conversation_id: a,
        chat_open: true,
      });
      assertEquals(beat.status, 200, beat.text);
      socket = pusherClient(s);
      const sub = await subscribe(socket, beat.body.conversation.realtime_channel as string);
      assert(sub.ok, "subscribed");
      if (sub.ok) erased = nextEvent(sub.channel, "conversation.erased", 15_000);
    });

    await t.step("erase by e-mail: nothing of the contact is left in the database", async () => {
      const r = await v1("/contacts/erase", { email: EMAIL_A });
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.data.conversations, [a]);
      const counts = r.body.data.counts;
      assertEquals([counts.conversations, counts.notes, counts.visitors, counts.ratings], [
        1,
        1,
        1,
        1,
      ]);
      assert(counts.messages >= 4 && counts.webhook_events > 0, JSON.stringify(counts));
      const dump = (await dumpDatabase(s)).toLowerCase();
      for (const needle of [EMAIL_A, NAME, SENTENCE, "zanzibar", "marbleton"]) {
        assert(!dump.includes(needle.toLowerCase()), `"${needle}" is still in the database`);
      }
      // The others are untouched.
      for (const needle of [B.email, B.name, B.says, C.email, C.name, C.says]) {
        assert(dump.includes(needle.toLowerCase()), `"${needle}" was erased too`);
      }
      const gone = await http(s.url, "GET", `/api/v1/conversations/${a}`, {
        token: T.acme.owner.api,
      });
      assertEquals(gone.status, 404);
      const kept = await http(s.url, "GET", `/api/v1/conversations/${b}`, {
        token: T.acme.owner.api,
      });
      assertEquals(kept.status, 200);
      const globex = await http(s.url, "GET", `/api/v1/conversations/${c}`, {
        token: T.globex.owner.api,
      });
      assertEquals(globex.status, 200);
      // The visitor's socket hears it, and the widget's session for it is over.
      assertEquals((await erased!).conversation_id, a);
      const snapshot = await http(
        s.url,
        "GET",
        `/widget/${KEY}/conversation?visitor_id=${visitorA}&conversation_id=${a}`,
        { headers: freshIp() },
      );
      assertEquals(snapshot.status, 404);
      // Usage counters stay: the month's message count does not go down.
      const usageAfter = await s.deps.sql`SELECT messages_used FROM usage_counters ORDER BY 1`;
      assertEquals(usageAfter, usageBefore);
    });

    await t.step("the audit log counts, the webhook names public ids only", async () => {
      const [row] = await s.deps.sql<{ details: Record<string, unknown>; actor_label: string }[]>`
        SELECT details, actor_label FROM audit_log WHERE action = 'contact.erased'
         AND details ->> 'conversations' = '1'`;
      assert(row, "an audit row");
      assertEquals(row.details.named_by, "email");
      assertEquals(row.details.notes, 1);
      await waitUntil(
        () => receiver.received.some((h) => h.body.includes('"contact.erased"')),
        "the contact.erased webhook",
        15_000,
      );
      const hit = receiver.received.find((h) => h.body.includes('"contact.erased"'))!;
      const body = JSON.parse(hit.body);
      assertEquals(body.data.conversations, [a]);
      assertEquals(body.data.visitors, [{ chatbot_key: KEY, id: visitorA }]);
      assert(!hit.body.includes(EMAIL_A) && !hit.body.includes(NAME));
      // Erasing again finds nothing, and is not an error.
      const again = await v1("/contacts/erase", { email: EMAIL_A });
      assertEquals([again.status, again.body.data.conversations], [200, []]);
    });
  } finally {
    (socket as Pusher | null)?.disconnect();
    await s.stop();
    await fake.close();
    await smtp.stop();
    await receiver.stop();
  }
});

async function dashboardToken(): Promise<string> {
  const r = await http(s.url, "POST", "/api/dashboard/login", {
    body: { email: "owner@acme.test", password: "correct horse battery staple" },
  });
  assertEquals(r.status, 200, r.text);
  return r.body.token as string;
}
