/**
 * The widget's JSON endpoints: config, snapshot, reset, heartbeat, handoff
 * and rating — shapes, ownership (404 for anyone else's conversation),
 * validation (422 naming the field), per-IP limits and CORS.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { agentSays, freshIp, postStream, resolve, takeOver, WIDGET_ENV } from "./widget_client.ts";

const KEY = "acme-helper";
const AT_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/;
let seq = 0;
const newVisitor = () => `v_ep_${++seq}_${crypto.randomUUID().slice(0, 8)}`;

Deno.test("widget endpoints", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  const get = (path: string) => http(s.url, "GET", path, { headers: freshIp() });
  const post = (path: string, body: unknown) =>
    http(s.url, "POST", path, { body, headers: freshIp() });
  /** A new conversation of `visitor` with one visitor message and one AI reply. */
  const converse = async (visitor: string) => {
    const r = await postStream(s.url, KEY, { visitor_id: visitor, message: "Hello there" });
    assertEquals(r.status, 200);
    return r.events[0]!.data.conversation_id as string;
  };

  try {
    await t.step("config returns branding, welcome, pre-chat, realtime and features", async () => {
      const r = await get(`/widget/${KEY}/config`);
      assertEquals(r.status, 200);
      const d = r.body.data;
      assertEquals(d.public_key, KEY);
      assertEquals(d.name, "Acme Helper");
      assertEquals(d.welcome_message, "Hello from Acme!");
      assertEquals(d.branding.primary_color, "#ff6600");
      assertEquals(d.branding.theme, "ocean");
      assertEquals(d.branding.title, "Acme Support");
      assertEquals(d.branding.position, "right", "defaults fill what was not stored");
      assertEquals(d.quick_replies, d.branding.quick_replies);
      assertEquals(d.proactive, d.branding.proactive);
      assertEquals(d.prechat, { enabled: false, fields: [] });
      assertEquals(d.realtime, {
        transport: "pusher",
        key: "parley",
        host: "localhost",
        port: s.realtimePort,
        tls: false,
        heartbeat_seconds: 15,
        stream_path: `/widget/${KEY}/stream`,
      });
      assertEquals(d.features, { human_handoff: true, rating: true });
      assertEquals(r.headers.get("access-control-allow-origin"), "*");
      assertEquals(r.headers.get("x-ratelimit-limit"), "60");
      const globex = await get(`/widget/globex-bot/config`);
      assertEquals(globex.body.data.welcome_message, "Hi there! How can I help you today?");
    });

    await t.step("config shows the stored pre-chat form, keeping only known fields", async () => {
      await s.deps.sql`
        UPDATE chatbots SET branding = branding || ${
        s.deps.sql.json({
          prechat: {
            enabled: true,
            fields: [
              { name: "email", required: true },
              { name: "name", label: "Your name" },
              { name: "ssn" },
              { name: "email" },
            ],
          },
        })
      }::jsonb WHERE public_key = 'globex-bot'`;
      const r = await get(`/widget/globex-bot/config`);
      assertEquals(r.body.data.prechat, {
        enabled: true,
        fields: [
          { name: "email", label: "E-mail", type: "email", required: true },
          { name: "name", label: "Your name", type: "text", required: false },
        ],
      });
    });

    await t.step("an unknown or inactive bot is the same 404 on every endpoint", async () => {
      const unknown = await get(`/widget/no-such-bot/config`);
      const inactive = await get(`/widget/acme-sleeper/config`);
      assertEquals(unknown.status, 404);
      assertEquals(inactive.status, 404);
      assertEquals(unknown.body, inactive.body);
      assertEquals(typeof unknown.body.message, "string");
      const id = crypto.randomUUID();
      const body = { visitor_id: "v1", conversation_id: id, chat_open: false, rating: 5 };
      for (const path of ["chat/reset", "heartbeat", "handoff", "rating"]) {
        const r = await post(`/widget/acme-sleeper/${path}`, body);
        assertEquals(r.status, 404, path);
      }
      const snap = await get(`/widget/acme-sleeper/conversation?visitor_id=v1`);
      assertEquals(snap.status, 404);
    });

    await t.step("a bot of a suspended workspace is 404 like an unknown one", async () => {
      await s.deps.sql`UPDATE workspaces SET suspended = true WHERE slug = 'globex'`;
      try {
        const r = await get(`/widget/globex-bot/config`);
        assertEquals(r.status, 404);
        const st = await postStream(s.url, "globex-bot", { visitor_id: "v1", message: "Hi" });
        assertEquals(st.status, 404);
      } finally {
        await s.deps.sql`UPDATE workspaces SET suspended = false WHERE slug = 'globex'`;
      }
      assertEquals((await get(`/widget/globex-bot/config`)).status, 200);
    });

    await t.step("snapshot returns state and messages with offset timestamps", async () => {
      const visitor = newVisitor();
      const id = await converse(visitor);
      const r = await get(
        `/widget/${KEY}/conversation?visitor_id=${visitor}&conversation_id=${id}`,
      );
      assertEquals(r.status, 200);
      assertEquals(Object.keys(r.body).sort(), [
        "conversation_id",
        "handoff_state",
        "messages",
        "status",
        "wait_remaining",
      ]);
      assertEquals(r.body.conversation_id, id);
      assertEquals(r.body.status, "bot");
      assertEquals(r.body.handoff_state, "bot_active");
      assertEquals(r.body.wait_remaining, null);
      assertEquals(r.body.messages.map((m: { role: string }) => m.role), ["visitor", "assistant"]);
      for (const m of r.body.messages) {
        assertEquals(Object.keys(m).sort(), ["at", "content", "id", "role"]);
        assertMatch(m.at, AT_RE);
      }
      assertEquals(r.headers.get("x-ratelimit-limit"), "60");
      // Without conversation_id: the visitor's latest open conversation.
      const latest = await get(`/widget/${KEY}/conversation?visitor_id=${visitor}`);
      assertEquals(latest.body.conversation_id, id);
    });

    await t.step(
      "snapshot is 404 for another visitor, another bot, or no open conversation",
      async () => {
        const visitor = newVisitor();
        const id = await converse(visitor);
        const other = await get(
          `/widget/${KEY}/conversation?visitor_id=intruder&conversation_id=${id}`,
        );
        assertEquals(other.status, 404);
        const otherBot = await get(
          `/widget/globex-bot/conversation?visitor_id=${visitor}&conversation_id=${id}`,
        );
        assertEquals(otherBot.status, 404);
        assertEquals(other.body, otherBot.body);
        const streamOtherBot = await postStream(s.url, "globex-bot", {
          visitor_id: visitor,
          message: "Cross-bot",
          conversation_id: id,
        });
        assertEquals(streamOtherBot.status, 404);
        const none = await get(`/widget/${KEY}/conversation?visitor_id=${newVisitor()}`);
        assertEquals(none.status, 404);
      },
    );

    await t.step("snapshot validation names the field", async () => {
      const missing = await get(`/widget/${KEY}/conversation`);
      assertEquals(missing.status, 422);
      assertEquals(missing.body.errors.visitor_id, ["The visitor id field is required."]);
      const bad = await get(`/widget/${KEY}/conversation?visitor_id=v1&conversation_id=123`);
      assertEquals(bad.status, 422);
      assertOk(bad.body.errors.conversation_id);
      const long = await get(`/widget/${KEY}/conversation?visitor_id=${"x".repeat(101)}`);
      assertEquals(long.status, 422);
      assertMatch(long.body.errors.visitor_id[0], /100 characters/);
    });

    await t.step("reset closes the visitor's conversation, idempotently", async () => {
      const visitor = newVisitor();
      const id = await converse(visitor);
      const r = await post(`/widget/${KEY}/chat/reset`, {
        visitor_id: visitor,
        conversation_id: id,
      });
      assertEquals(r.status, 200);
      assertEquals(r.body, { conversation_id: id, status: "closed" });
      assertEquals(r.headers.get("x-ratelimit-limit"), "30");
      const again = await post(`/widget/${KEY}/chat/reset`, {
        visitor_id: visitor,
        conversation_id: id,
      });
      assertEquals(again.status, 200);
      assertEquals(again.body, r.body);
      const snap = await get(
        `/widget/${KEY}/conversation?visitor_id=${visitor}&conversation_id=${id}`,
      );
      assertEquals(snap.body.status, "closed");
      // No open conversation is left; the next message starts a new one.
      assertEquals((await get(`/widget/${KEY}/conversation?visitor_id=${visitor}`)).status, 404);
      const next = await converse(visitor);
      assertOk(next !== id);
    });

    await t.step("reset is 404 for another visitor and 422 without ids", async () => {
      const id = await converse(newVisitor());
      const r = await post(`/widget/${KEY}/chat/reset`, {
        visitor_id: "intruder",
        conversation_id: id,
      });
      assertEquals(r.status, 404);
      const snap = await s.deps.sql<{ status: string }[]>`
        SELECT status FROM conversations WHERE public_id = ${id}`;
      assertEquals(snap[0]!.status, "bot", "nothing changed");
      const bad = await post(`/widget/${KEY}/chat/reset`, {});
      assertEquals(bad.status, 422);
      assertEquals(Object.keys(bad.body.errors).sort(), ["conversation_id", "visitor_id"]);
    });

    await t.step("a message to a reset conversation reopens it", async () => {
      const visitor = newVisitor();
      const id = await converse(visitor);
      await post(`/widget/${KEY}/chat/reset`, { visitor_id: visitor, conversation_id: id });
      const r = await postStream(s.url, KEY, {
        visitor_id: visitor,
        message: "Back again",
        conversation_id: id,
      });
      assertEquals(r.events[0]!.data.conversation_id, id);
      assertEquals(r.events[0]!.data.status, "bot");
    });

    await t.step("heartbeat records presence, page views and the journey", async () => {
      const visitor = newVisitor();
      const beat = (body: Record<string, unknown>) =>
        http(s.url, "POST", `/widget/${KEY}/heartbeat`, {
          body: { visitor_id: visitor, chat_open: false, ...body },
          headers: { ...freshIp(), "user-agent": "TestBrowser/1.0" },
        });
      const first = await beat({
        page_url: "https://shop.example/",
        page_title: "Home",
        referrer: "https://search.example/?q=acme",
        locale: "de-DE",
        timezone: "Europe/Berlin",
      });
      assertEquals(first.status, 200);
      assertEquals(first.body, { poll_seconds: 15, conversation: null, messages: [] });
      assertEquals(first.headers.get("x-ratelimit-limit"), "120");
      await beat({ page_url: "https://shop.example/" }); // same page: no new view
      await beat({ page_url: "https://shop.example/pricing", page_title: "Pricing" });
      await beat({}); // no page: presence only
      const [v] = await s.deps.sql<
        {
          page_url: string;
          page_title: string;
          entry_page: string;
          referrer: string;
          locale: string;
          timezone: string;
          user_agent: string;
          page_views: number;
          journey: { url: string; at: string }[];
        }[]
      >`SELECT * FROM visitors WHERE visitor_id = ${visitor}`;
      assertEquals(v!.page_url, "https://shop.example/pricing");
      assertEquals(v!.page_title, "Pricing");
      assertEquals(v!.entry_page, "https://shop.example/");
      assertEquals(v!.referrer, "https://search.example/?q=acme");
      assertEquals(v!.locale, "de-DE");
      assertEquals(v!.timezone, "Europe/Berlin");
      assertEquals(v!.user_agent, "TestBrowser/1.0");
      assertEquals(v!.page_views, 2);
      assertEquals(v!.journey.map((j) => j.url), [
        "https://shop.example/",
        "https://shop.example/pricing",
      ]);
    });

    await t.step("the journey keeps the last 50 pages", async () => {
      const visitor = newVisitor();
      for (let i = 1; i <= 52; i++) {
        const r = await post(`/widget/${KEY}/heartbeat`, {
          visitor_id: visitor,
          chat_open: false,
          page_url: `https://shop.example/p${i}`,
        });
        assertEquals(r.status, 200);
      }
      const [v] = await s.deps.sql<{ page_views: number; journey: { url: string }[] }[]>`
        SELECT page_views, journey FROM visitors WHERE visitor_id = ${visitor}`;
      assertEquals(v!.page_views, 52);
      assertEquals(v!.journey.length, 50);
      assertEquals(v!.journey[0]!.url, "https://shop.example/p3");
      assertEquals(v!.journey.at(-1)!.url, "https://shop.example/p52");
    });

    await t.step(
      "heartbeat delivers an agent's messages once, even while the chat was closed",
      async () => {
        const visitor = newVisitor();
        const id = await converse(visitor);
        const msgId = await agentSays(s.deps, id, "Hi, I'm Amy from support.");
        const beat = () =>
          post(`/widget/${KEY}/heartbeat`, {
            visitor_id: visitor,
            conversation_id: id,
            chat_open: false,
          });
        const r = await beat();
        assertEquals(r.status, 200);
        assertEquals(r.body.conversation, {
          conversation_id: id,
          status: "agent",
          handoff_state: "human_connected",
          realtime_channel: r.body.conversation.realtime_channel,
          screen_share: null,
        });
        assertMatch(r.body.conversation.realtime_channel, /^conversation-widget\.[0-9a-f-]{36}\./);
        assertEquals(r.body.messages.length, 1);
        assertEquals(r.body.messages[0].id, msgId);
        assertEquals(r.body.messages[0].role, "agent");
        assertEquals(r.body.messages[0].content, "Hi, I'm Amy from support.");
        assertMatch(r.body.messages[0].at, AT_RE);
        assertEquals((await beat()).body.messages, [], "delivered only once");
        // Open chat with a human involved: poll faster.
        const open = await post(`/widget/${KEY}/heartbeat`, {
          visitor_id: visitor,
          conversation_id: id,
          chat_open: true,
        });
        assertEquals(open.body.poll_seconds, 3);
      },
    );

    await t.step(
      "heartbeat without conversation_id finds the visitor's open conversation",
      async () => {
        const visitor = newVisitor();
        const id = await converse(visitor);
        await agentSays(s.deps, id, "Can I help?");
        const r = await post(`/widget/${KEY}/heartbeat`, { visitor_id: visitor, chat_open: true });
        assertEquals(r.body.conversation.conversation_id, id);
        assertEquals(r.body.messages.map((m: { content: string }) => m.content), ["Can I help?"]);
      },
    );

    await t.step("snapshot counts agent messages as delivered", async () => {
      const visitor = newVisitor();
      const id = await converse(visitor);
      await agentSays(s.deps, id, "Seen in the snapshot");
      const snap = await get(
        `/widget/${KEY}/conversation?visitor_id=${visitor}&conversation_id=${id}`,
      );
      assertEquals(snap.body.messages.at(-1).content, "Seen in the snapshot");
      const r = await post(`/widget/${KEY}/heartbeat`, {
        visitor_id: visitor,
        conversation_id: id,
        chat_open: true,
      });
      assertEquals(r.body.messages, []);
      assertEquals(r.body.poll_seconds, 3);
    });

    await t.step(
      "heartbeat is 404 for another visitor's conversation and 422 on bad input",
      async () => {
        const id = await converse(newVisitor());
        await agentSays(s.deps, id, "Private");
        const r = await post(`/widget/${KEY}/heartbeat`, {
          visitor_id: "intruder",
          conversation_id: id,
          chat_open: true,
        });
        assertEquals(r.status, 404);
        const [m] = await s.deps.sql<{ delivered_at: Date | null }[]>`
        SELECT m.delivered_at FROM messages m JOIN conversations c ON c.id = m.conversation_id
         WHERE c.public_id = ${id} AND m.role = 'agent'`;
        assertEquals(m!.delivered_at, null, "not delivered to the intruder");
        const bad = await post(`/widget/${KEY}/heartbeat`, {
          visitor_id: "v1",
          chat_open: "yes",
          page_url: "x".repeat(2049),
        });
        assertEquals(bad.status, 422);
        assertEquals(Object.keys(bad.body.errors).sort(), ["chat_open", "page_url"]);
      },
    );

    await t.step("handoff moves to handoff_pending and records when, once", async () => {
      const visitor = newVisitor();
      const id = await converse(visitor);
      const r = await post(`/widget/${KEY}/handoff`, { visitor_id: visitor, conversation_id: id });
      assertEquals(r.status, 200);
      assertEquals(r.body.conversation_id, id);
      assertEquals(r.body.status, "bot");
      assertEquals(r.body.handoff_state, "handoff_pending");
      assertMatch(r.body.handoff_requested_at, AT_RE);
      assertEquals(r.headers.get("x-ratelimit-limit"), "10");
      const again = await post(`/widget/${KEY}/handoff`, {
        visitor_id: visitor,
        conversation_id: id,
      });
      assertEquals(again.body, r.body, "idempotent: the first request time is kept");
      const snap = await get(
        `/widget/${KEY}/conversation?visitor_id=${visitor}&conversation_id=${id}`,
      );
      assertEquals(snap.body.handoff_state, "handoff_pending");
      // The AI keeps helping while the visitor waits for a person.
      const msg = await postStream(s.url, KEY, {
        visitor_id: visitor,
        message: "Still there?",
        conversation_id: id,
      });
      assertEquals(msg.events.at(-1)!.event, "done");
      assertEquals(msg.events.at(-1)!.data.source, "ai");
    });

    await t.step("handoff with a human connected returns the current state", async () => {
      const visitor = newVisitor();
      const id = await converse(visitor);
      await takeOver(s.deps, id);
      const r = await post(`/widget/${KEY}/handoff`, { visitor_id: visitor, conversation_id: id });
      assertEquals(r.status, 200);
      assertEquals(r.body.status, "agent");
      assertEquals(r.body.handoff_state, "human_connected");
    });

    await t.step(
      "handoff is 404 for another visitor and 409 on a closed conversation",
      async () => {
        const visitor = newVisitor();
        const id = await converse(visitor);
        const r = await post(`/widget/${KEY}/handoff`, {
          visitor_id: "intruder",
          conversation_id: id,
        });
        assertEquals(r.status, 404);
        await resolve(s.deps, id);
        const closed = await post(`/widget/${KEY}/handoff`, {
          visitor_id: visitor,
          conversation_id: id,
        });
        assertEquals(closed.status, 409);
        assertEquals(typeof closed.body.message, "string");
      },
    );

    await t.step("rating is allowed once closed, and re-rating overwrites", async () => {
      const visitor = newVisitor();
      const id = await converse(visitor);
      const early = await post(`/widget/${KEY}/rating`, {
        visitor_id: visitor,
        conversation_id: id,
        rating: 5,
      });
      assertEquals(early.status, 422);
      assertEquals(early.body.errors.conversation_id, [
        "The conversation must be closed before it can be rated.",
      ]);
      await resolve(s.deps, id);
      const r = await post(`/widget/${KEY}/rating`, {
        visitor_id: visitor,
        conversation_id: id,
        rating: 4,
        comment: "  Quick and kind.  ",
      });
      assertEquals(r.status, 200);
      assertEquals(r.body, { conversation_id: id, rating: 4, comment: "Quick and kind." });
      assertEquals(r.headers.get("x-ratelimit-limit"), "10");
      const again = await post(`/widget/${KEY}/rating`, {
        visitor_id: visitor,
        conversation_id: id,
        rating: 2,
      });
      assertEquals(again.body, { conversation_id: id, rating: 2, comment: null });
      const [row] = await s.deps.sql<{ rating: number; rating_comment: string | null }[]>`
        SELECT rating, rating_comment FROM conversations WHERE public_id = ${id}`;
      assertEquals(row, { rating: 2, rating_comment: null });
    });

    await t.step("rating validates the value and checks ownership", async () => {
      const visitor = newVisitor();
      const id = await converse(visitor);
      await post(`/widget/${KEY}/chat/reset`, { visitor_id: visitor, conversation_id: id });
      for (const rating of [0, 6, 2.5, "5"]) {
        const r = await post(`/widget/${KEY}/rating`, {
          visitor_id: visitor,
          conversation_id: id,
          rating,
        });
        assertEquals(r.status, 422, String(rating));
        assertEquals(Object.keys(r.body.errors), ["rating"]);
      }
      const long = await post(`/widget/${KEY}/rating`, {
        visitor_id: visitor,
        conversation_id: id,
        rating: 3,
        comment: "x".repeat(1001),
      });
      assertEquals(long.status, 422);
      assertMatch(long.body.errors.comment[0], /1000 characters/);
      const intruder = await post(`/widget/${KEY}/rating`, {
        visitor_id: "intruder",
        conversation_id: id,
        rating: 1,
      });
      assertEquals(intruder.status, 404);
    });

    await t.step("each endpoint has its per-IP limit; past it, 429 with Retry-After", async () => {
      const ip = freshIp();
      for (let i = 0; i < 60; i++) {
        const r = await http(s.url, "GET", `/widget/${KEY}/config`, { headers: ip });
        assertEquals(r.status, 200);
      }
      const limited = await http(s.url, "GET", `/widget/${KEY}/config`, { headers: ip });
      assertEquals(limited.status, 429);
      assertEquals(limited.headers.get("x-ratelimit-remaining"), "0");
      assertOk(Number(limited.headers.get("retry-after")) >= 1);
      assertEquals(typeof limited.body.message, "string");
      assertEquals(limited.headers.get("access-control-allow-origin"), "*");
      // A limit is per IP and per route: another route from the same IP still answers.
      const other = await http(s.url, "GET", `/widget/${KEY}/conversation?visitor_id=v`, {
        headers: ip,
      });
      assertEquals(other.status, 404);
      const hip = freshIp();
      for (let i = 0; i < 10; i++) {
        await http(s.url, "POST", `/widget/${KEY}/handoff`, { body: {}, headers: hip });
      }
      const h = await http(s.url, "POST", `/widget/${KEY}/handoff`, { body: {}, headers: hip });
      assertEquals(h.status, 429);
    });

    await t.step("the widget endpoints appear in the OpenAPI document", async () => {
      const doc = await get("/api/openapi.json");
      for (const p of ["config", "conversation", "chat/reset", "heartbeat", "handoff", "rating"]) {
        assertOk(doc.body.paths[`/widget/{key}/${p}`], p);
      }
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
