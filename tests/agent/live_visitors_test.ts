/**
 * Live visitors and invitations: everyone heartbeating now is listed (chat
 * opened or not) with page, device and open conversation, and leaves after
 * the documented timeout; an invitation opens a human-owned conversation
 * (201) or takes over the open one (200), reaches the visitor with the next
 * heartbeat, keeps the AI quiet, and saves nothing when it fails (500).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const CHROME_MAC =
  "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36";

const fake = startFakeAi({ reply: "The AI answers." });
const s = await startTestServer({
  seed: standardSeed(),
  env: { AI_BASE_URL: fake.baseUrl, ...WIDGET_ENV },
});
const agent = T.acme.agent.agent;
const invite = (visitor: string, body: unknown, token: string = agent) =>
  http(s.url, "POST", `/api/agent/visitors/${encodeURIComponent(visitor)}/invite`, {
    token,
    body,
  });
const live = (query = "", token: string = agent) =>
  http(s.url, "GET", `/api/agent/visitors${query}`, { token });

async function heartbeat(
  visitor: string,
  opts: { chatOpen?: boolean; page?: string; key?: string; headers?: Record<string, string> } = {},
) {
  const r = await http(s.url, "POST", `/widget/${opts.key ?? "acme-helper"}/heartbeat`, {
    body: {
      visitor_id: visitor,
      chat_open: opts.chatOpen ?? false,
      page_url: opts.page ?? "https://acme.test/pricing",
      page_title: "Pricing",
    },
    headers: { ...freshIp(), "user-agent": CHROME_MAC, ...(opts.headers ?? {}) },
  });
  assertEquals(r.status, 200);
  return r.body;
}

/** Move a visitor's last heartbeat into the past (no HTTP surface ages a visitor). */
async function age(visitor: string, seconds: number) {
  await s.deps.sql`
    UPDATE visitors SET last_seen_at = last_seen_at - make_interval(secs => ${seconds})
     WHERE visitor_id = ${visitor}`;
}

Deno.test("live visitors", serverTestOptions, async (t) => {
  await t.step("lists who is browsing now, chat opened or not", async () => {
    const browsing = `browse-${crypto.randomUUID()}`;
    await heartbeat(browsing, { page: "https://acme.test/" });
    await heartbeat(browsing, {
      page: "https://acme.test/pricing",
      headers: { "cf-ipcountry": "DE" },
    });
    const chatting = `chat-${crypto.randomUUID()}`;
    const turn = await postStream(s.url, "acme-helper", {
      visitor_id: chatting,
      message: "Hello",
    });
    await heartbeat(chatting, { chatOpen: true });
    const r = await live();
    assertEquals(r.status, 200);
    assertEquals(r.body.enabled, true);
    assertEquals(r.body.poll_seconds, 10);
    assertEquals(r.body.timeout_seconds, 45);
    const b = r.body.visitors.find((v: { id: string }) => v.id === browsing);
    assertOk(b, "the browsing visitor is listed");
    assertEquals(b.chatbot, { public_key: "acme-helper", name: "Acme Helper" });
    assertEquals(b.page, "https://acme.test/pricing");
    assertEquals(b.page_title, "Pricing");
    assertEquals(b.page_views, 2);
    assertEquals(b.device, "desktop");
    assertEquals(b.browser, "Chrome 126");
    assertOk(b.os.startsWith("macOS"));
    assertEquals(b.country, "DE");
    assertEquals(b.chat_open, false);
    assertEquals(b.has_conversation, false);
    assertEquals(b.conversation_id, null);
    assertEquals(typeof b.time_on_site_seconds, "number");
    const c = r.body.visitors.find((v: { id: string }) => v.id === chatting);
    assertEquals(c.has_conversation, true);
    assertEquals(c.conversation_id, turn.events[0]!.data.conversation_id);
    assertEquals(c.chat_open, true);
  });

  await t.step("a silent visitor leaves after the timeout", async () => {
    const gone = `gone-${crypto.randomUUID()}`;
    await heartbeat(gone);
    await age(gone, 46);
    const r = await live();
    assertOk(!r.body.visitors.some((v: { id: string }) => v.id === gone));
  });

  await t.step("limit is clamped to 1..200; other workspaces see none of it", async () => {
    for (let i = 0; i < 3; i++) await heartbeat(`many-${i}-${crypto.randomUUID()}`);
    assertEquals((await live("?limit=2")).body.visitors.length, 2);
    assertEquals((await live("?limit=0")).body.visitors.length, 1);
    assertEquals((await live("?limit=-5")).body.visitors.length, 1);
    const all = (await live("?limit=5000")).body.visitors.length;
    assertEquals(all, (await live()).body.visitors.length);
    assertOk(all >= 5);
    const g = await live("", T.globex.owner.agent);
    assertEquals(g.status, 200);
    assertEquals(g.body.visitors, []);
    assertEquals((await live("?limit=abc")).status, 422);
  });

  await t.step("enabled is false when no active bot has live visitors on", async () => {
    await s.deps.sql`
      UPDATE chatbots SET branding = branding || '{"live_visitors": false}'::jsonb
       WHERE public_key = 'acme-helper'`;
    try {
      assertEquals((await live()).body.enabled, false);
    } finally {
      await s.deps.sql`
        UPDATE chatbots SET branding = branding - 'live_visitors'
         WHERE public_key = 'acme-helper'`;
    }
    assertEquals((await live()).body.enabled, true);
  });

  await t.step("401 without a token, 403 with another ability", async () => {
    assertEquals((await http(s.url, "GET", "/api/agent/visitors")).status, 401);
    assertEquals((await live("", T.acme.agent.api)).status, 403);
  });
});

Deno.test("invite a visitor", serverTestOptions, async (t) => {
  await t.step("201: a new human-managed conversation, delivered by the heartbeat", async () => {
    const visitor = `inv-${crypto.randomUUID()}`;
    await heartbeat(visitor);
    const r = await invite(visitor, { message: "Hi! Can I help you with pricing?" });
    assertEquals(r.status, 201);
    assertEquals(r.body.created, true);
    assertEquals(r.body.delivery_within_seconds, 15);
    assertEquals(r.body.message.role, "agent");
    assertEquals(r.body.message.content, "Hi! Can I help you with pricing?");
    assertOk(/^\d{2}:\d{2}$/.test(r.body.message.at));
    const listed = (await live()).body.visitors.find((v: { id: string }) => v.id === visitor);
    assertEquals(listed.conversation_id, r.body.conversation_id);
    // The closed widget receives the message with its next heartbeat, once.
    const hb = await heartbeat(visitor);
    assertEquals(hb.conversation.conversation_id, r.body.conversation_id);
    assertEquals(hb.conversation.status, "agent");
    assertEquals(hb.conversation.handoff_state, "human_connected");
    assertEquals(hb.messages.map((m: { content: string }) => m.content), [
      "Hi! Can I help you with pricing?",
    ]);
    assertEquals((await heartbeat(visitor)).messages, []);
    // The AI does not talk over the agent.
    fake.requests.length = 0;
    const turn = await postStream(s.url, "acme-helper", {
      visitor_id: visitor,
      conversation_id: r.body.conversation_id,
      message: "Yes please, what does the pro plan cost?",
    });
    assertEquals(turn.status, 200);
    assertEquals(fake.requests.length, 0);
    assertOk(!turn.events.some((e) => e.event === "delta"));
    // The agent's inbox shows it as theirs, human-connected.
    const view = await http(
      s.url,
      "GET",
      `/api/agent/conversations/${r.body.conversation_id}`,
      { token: agent },
    );
    assertEquals(view.body.active.status, "agent");
    assertEquals(view.body.active.mine, true);
    assertEquals(view.body.active.events[0].type, "human_connected");
  });

  await t.step("200: the visitor's open conversation is used and taken over", async () => {
    const visitor = `open-${crypto.randomUUID()}`;
    const turn = await postStream(s.url, "acme-helper", {
      visitor_id: visitor,
      message: "Hello bot",
    });
    const conversation = turn.events[0]!.data.conversation_id;
    await heartbeat(visitor, { chatOpen: true });
    const r = await invite(visitor, { message: "Amy here, taking over." });
    assertEquals(r.status, 200);
    assertEquals(r.body.created, false);
    assertEquals(r.body.conversation_id, conversation);
    assertEquals(r.body.delivery_within_seconds, 10);
    const again = await invite(visitor, { message: "Still there?" });
    assertEquals(again.status, 200);
    assertEquals(again.body.delivery_within_seconds, 3);
    const hb = await heartbeat(visitor, { chatOpen: true });
    assertEquals(hb.messages.map((m: { content: string }) => m.content), [
      "Amy here, taking over.",
      "Still there?",
    ]);
  });

  await t.step("200 for a visitor with an open conversation but no heartbeat yet", async () => {
    // Wrote through the integration API: a conversation, no widget heartbeat.
    const visitor = `api-${crypto.randomUUID()}`;
    const v1 = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
      token: T.acme.owner.api,
      body: { message: "Hello from the API", visitor_id: visitor },
    });
    assertEquals(v1.status, 200);
    const r = await invite(visitor, { message: "Amy here." });
    assertEquals(r.status, 200, JSON.stringify(r.body));
    assertEquals(r.body.created, false);
    assertEquals(r.body.conversation_id, v1.body.conversation_id);
    assertEquals(r.body.delivery_within_seconds, 15);
    const view = await http(s.url, "GET", `/api/agent/conversations/${r.body.conversation_id}`, {
      token: agent,
    });
    assertEquals([view.body.active.status, view.body.active.handoff_state], [
      "agent",
      "human_connected",
    ]);
    // Once that conversation is closed, an unheard-of visitor is 404 again.
    await http(s.url, "POST", `/api/agent/conversations/${r.body.conversation_id}/resolve`, {
      token: agent,
    });
    assertEquals((await invite(visitor, { message: "Hello?" })).status, 404);
  });

  await t.step("the id is truncated to 100 characters; empty is 404", async () => {
    const long = `t${"x".repeat(99)}`;
    await heartbeat(long);
    const r = await invite(`${long}-and-more-after-the-limit`, { message: "Hello" });
    assertEquals(r.status, 201);
    assertEquals((await invite(" ", { message: "Hello" })).status, 404);
    // Ids are URL-decoded from the path: any character a widget may use works.
    const odd = `odd id/é ${crypto.randomUUID()}`;
    await heartbeat(odd);
    assertEquals((await invite(odd, { message: "Hello" })).status, 201);
    assertEquals((await invite("never-seen-visitor", { message: "Hello" })).status, 404);
  });

  await t.step("409 for a visitor who has left; 422 for bad input or no bot", async () => {
    const left = `left-${crypto.randomUUID()}`;
    await heartbeat(left);
    await age(left, 120);
    const r = await invite(left, { message: "Hello?" });
    assertEquals(r.status, 409);
    assertOk(r.body.message);
    const here = `here-${crypto.randomUUID()}`;
    await heartbeat(here);
    const blank = await invite(here, { message: "   " });
    assertEquals(blank.status, 422);
    assertOk(blank.body.errors.message);
    assertEquals((await invite(here, { message: "m".repeat(2001) })).status, 422);
    assertEquals((await invite(here, {})).status, 422);
    const [sleeper] = await s.deps.sql<{ id: number }[]>`
      SELECT id FROM chatbots WHERE public_key = 'acme-sleeper'`;
    const inactive = await invite(here, { message: "Hi", chatbot_id: sleeper!.id });
    assertEquals(inactive.status, 422);
    assertOk(inactive.body.errors.chatbot_id);
    const [globexBot] = await s.deps.sql<{ id: number }[]>`
      SELECT id FROM chatbots WHERE public_key = 'globex-bot'`;
    assertEquals((await invite(here, { message: "Hi", chatbot_id: globexBot!.id })).status, 422);
    // No active bot at all in the workspace.
    await s.deps.sql`UPDATE chatbots SET is_active = false WHERE public_key = 'acme-helper'`;
    try {
      const none = await invite(here, { message: "Hi" });
      assertEquals(none.status, 422);
      assertOk(none.body.errors.chatbot_id);
    } finally {
      await s.deps.sql`UPDATE chatbots SET is_active = true WHERE public_key = 'acme-helper'`;
    }
  });

  await t.step("another workspace's visitor is 404; the viewer seat 403", async () => {
    const visitor = `globex-${crypto.randomUUID()}`;
    await heartbeat(visitor, { key: "globex-bot" });
    assertEquals((await invite(visitor, { message: "Hi" })).status, 404);
    assertEquals((await invite(visitor, { message: "Hi" }, T.acme.viewer.agent)).status, 403);
    assertEquals((await invite(visitor, { message: "Hi" }, T.globex.owner.agent)).status, 201);
  });

  await t.step("a failure is a 500 and leaves nothing saved", async () => {
    const visitor = `fail-${crypto.randomUUID()}`;
    await heartbeat(visitor);
    // The message insert fails after the conversation row was written.
    await s.deps.sql.unsafe(`
      CREATE FUNCTION refuse_invite() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.content = 'FAIL-INVITE' THEN RAISE EXCEPTION 'disk full'; END IF;
        RETURN NEW;
      END $$;
      CREATE TRIGGER refuse_invite BEFORE INSERT ON messages
        FOR EACH ROW EXECUTE FUNCTION refuse_invite();`);
    try {
      const r = await invite(visitor, { message: "FAIL-INVITE" });
      assertEquals(r.status, 500);
      assertOk(r.body.message.includes("nothing was saved"));
      assertOk(!r.text.includes("disk full"));
      const [n] = await s.deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM conversations WHERE visitor_id = ${visitor}`;
      assertEquals(n!.n, 0);
      const [e] = await s.deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM conversation_events ev JOIN conversations c
            ON c.id = ev.conversation_id WHERE c.visitor_id = ${visitor}`;
      assertEquals(e!.n, 0);
    } finally {
      await s.deps.sql.unsafe(`DROP TRIGGER refuse_invite ON messages;
        DROP FUNCTION refuse_invite();`);
    }
    // A retry is safe and succeeds.
    assertEquals((await invite(visitor, { message: "Hello again" })).status, 201);
  });

  await t.step("the route allows 30 invitations a minute per agent", async () => {
    const visitor = `rate-${crypto.randomUUID()}`;
    await heartbeat(visitor);
    const token = T.acme.administrator.agent;
    let last;
    for (let i = 0; i < 31; i++) {
      last = await invite(visitor, { message: `ping ${i}` }, token);
      if (i < 30) assertOk([200, 201].includes(last.status), `call ${i + 1}: ${last.status}`);
    }
    assertEquals(last!.status, 429);
    assertOk(Number(last!.headers.get("retry-after")) > 0);
    assertEquals(last!.headers.get("x-ratelimit-limit"), "30");
  });
});

Deno.test("stop the live visitors test server", serverTestOptions, async () => {
  await s.stop();
  await fake.close();
});
