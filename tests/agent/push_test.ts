/**
 * Web push end to end: a local push service over TLS (tests/helpers/
 * push_service.ts) that checks each push's VAPID signature and decrypts its
 * RFC 8291 body with the subscription's private keys. Proves registration
 * (upsert, refusals), that each alert kind raised by a real operation reaches
 * the agents it concerns, that each preference stops it, and that 410/404
 * and logout remove subscriptions while 5xx is retried.
 */
import webpush from "web-push";
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pushEnv, type ReceivedPush, startPushService } from "../helpers/push_service.ts";
import { openPushKeys } from "../../domain/notifications/push_keys.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const KEY = "acme-helper";
const AMY = T.acme.agent.agent;
const ABE = T.acme.administrator.agent;
const vapid = webpush.generateVAPIDKeys();
const fake = startFakeAi({ reply: "Happy to help." });
const push = await startPushService();
const s = await startTestServer({
  seed: standardSeed(),
  env: {
    ...WIDGET_ENV,
    AI_BASE_URL: fake.baseUrl,
    ...pushEnv(push, vapid),
    VAPID_SUBJECT: "mailto:ops@parley.test",
    SLA_CHECK_SECONDS: "1",
    PUSH_TIMEOUT_MS: "1500",
  },
});

const subscribe = async (token: string, deviceName?: string) => {
  const sub = await push.subscribe();
  const r = await http(s.url, "POST", "/api/agent/push/subscriptions", {
    token,
    body: { endpoint: sub.endpoint, keys: sub.keys, device_name: deviceName },
  });
  assertEquals(r.status, 201, r.text);
  return { ...sub, rowId: r.body.id as number };
};
const setPrefs = async (token: string, body: Record<string, unknown>) => {
  const r = await http(s.url, "PATCH", "/api/agent/notifications/preferences", { token, body });
  assertEquals(r.status, 200, r.text);
  return r.body;
};
let visitorNo = 0;
/** A new conversation (chat_started) of a new visitor; returns its id and visitor. */
const newChat = async () => {
  const visitor = `push-visitor-${++visitorNo}`;
  const r = await postStream(s.url, KEY, { visitor_id: visitor, message: "Hello there" });
  assertEquals(r.status, 200, r.text);
  return { id: r.events[0]!.data.conversation_id as string, visitor };
};
const say = async (chat: { id: string; visitor: string }, message: string) => {
  const r = await postStream(s.url, KEY, {
    visitor_id: chat.visitor,
    conversation_id: chat.id,
    message,
  });
  assertEquals(r.status, 200, r.text);
};
const handoff = async (chat: { id: string; visitor: string }) => {
  const r = await http(s.url, "POST", `/widget/${KEY}/handoff`, {
    body: { visitor_id: chat.visitor, conversation_id: chat.id },
    headers: freshIp(),
  });
  assertEquals(r.status, 200, r.text);
};
const to =
  (sub: { id: string }, kind: string, conversationId?: string | null) => (p: ReceivedPush) =>
    p.subscriptionId === sub.id && p.payload.kind === kind &&
    (conversationId === undefined || p.payload.conversation_id === conversationId);
/** Nothing matching arrives within `ms` (after a control push proved the alert went out). */
const noneFor = async (pred: (p: ReceivedPush) => boolean, ms = 800) => {
  await new Promise((r) => setTimeout(r, ms));
  assertEquals(push.received.filter(pred).length, 0, "an alert arrived that should not have");
};
const subscriptionCount = async (id: number) =>
  (await s.deps.sql`SELECT id FROM push_subscriptions WHERE id = ${id}`).length;

Deno.test("web push", serverTestOptions, async (t) => {
  try {
    await t.step("vapid answers the configured public key", async () => {
      const r = await http(s.url, "GET", "/api/agent/push/vapid", { token: AMY });
      assertEquals(r.status, 200);
      assertEquals(r.body, { configured: true, public_key: vapid.publicKey });
      assertEquals((await http(s.url, "GET", "/api/agent/push/vapid")).status, 401);
    });

    await t.step(
      "registering creates, resending the endpoint updates the same record",
      async () => {
        const sub = await push.subscribe();
        const first = await http(s.url, "POST", "/api/agent/push/subscriptions", {
          token: AMY,
          body: { endpoint: sub.endpoint, keys: sub.keys, device_name: "Amy's laptop" },
        });
        assertEquals(first.status, 201);
        assertEquals(first.body.created, true);
        assertEquals(first.body.device_name, "Amy's laptop");
        assertEquals(first.body.endpoint, sub.endpoint);
        const again = await http(s.url, "POST", "/api/agent/push/subscriptions", {
          token: AMY,
          body: { endpoint: sub.endpoint, keys: { p256dh: sub.keys.p256dh, auth: "bmV3LWF1dGg" } },
        });
        assertEquals(again.status, 200);
        assertEquals(again.body.created, false);
        assertEquals(again.body.id, first.body.id);
        // The keys are stored encrypted under APP_KEY, never in plain text.
        const rows = await s.deps.sql<{ keys_ciphertext: string }[]>`
          SELECT * FROM push_subscriptions WHERE endpoint = ${sub.endpoint}`;
        assertEquals(rows.length, 1);
        const stored = JSON.stringify(rows[0]);
        assertOk(!stored.includes(sub.keys.p256dh) && !stored.includes("bmV3LWF1dGg"), stored);
        assertEquals(await openPushKeys(s.deps.appKey, rows[0]!.keys_ciphertext), {
          p256dh: sub.keys.p256dh,
          auth: "bmV3LWF1dGg",
        });
        await s.deps.sql`DELETE FROM push_subscriptions WHERE id = ${first.body.id}`;
      },
    );

    await t.step("refused endpoints and bad keys are 422 naming the field", async () => {
      const keys = { p256dh: "BExample", auth: "secret" };
      const cases: [unknown, string][] = [
        [{ endpoint: "http://push.example.com/x", keys }, "endpoint"],
        [{ endpoint: "https://10.0.0.7/push/1", keys }, "endpoint"],
        [{ endpoint: "https://169.254.169.254/latest/meta-data", keys }, "endpoint"],
        [{ endpoint: "https://127.0.0.1:1/push/1", keys }, "endpoint"],
        [{ endpoint: "https://[::1]/push/1", keys }, "endpoint"],
        [{ endpoint: "https://localhost/push/1", keys }, "endpoint"],
        [{ endpoint: "not a url", keys }, "endpoint"],
        [{ endpoint: `https://push.example.com/${"x".repeat(2040)}`, keys }, "endpoint"],
        [{ endpoint: "https://push.example.com/x" }, "keys"],
        [{ endpoint: "https://push.example.com/x", keys: { auth: "a" } }, "keys.p256dh"],
        [
          { endpoint: "https://push.example.com/x", keys: { ...keys, auth: "a".repeat(256) } },
          "keys.auth",
        ],
        [
          { endpoint: "https://push.example.com/x", keys, device_name: "d".repeat(121) },
          "device_name",
        ],
      ];
      for (const [body, field] of cases) {
        const r = await http(s.url, "POST", "/api/agent/push/subscriptions", { token: AMY, body });
        assertEquals(r.status, 422, `${JSON.stringify(body).slice(0, 80)}: ${r.text}`);
        assertOk(r.body.errors[field], `${field} in ${JSON.stringify(r.body.errors)}`);
      }
      const viewer = await http(s.url, "POST", "/api/agent/push/subscriptions", {
        token: T.acme.viewer.agent,
        body: { endpoint: "https://push.example.com/v", keys },
      });
      assertEquals(viewer.status, 403);
    });

    const amy = await subscribe(AMY, "Amy's phone");
    const abe = await subscribe(ABE);
    const globex = await subscribe(T.globex.owner.agent);
    await setPrefs(AMY, { events: { visitor_arrived: { push: true } } });
    await setPrefs(ABE, { events: { visitor_arrived: { push: true } } });
    const chat = await newChat();

    await t.step(
      "another account posting a known endpoint gets its own row, never the owner's",
      async () => {
        // Globex's agent registers Amy's endpoint (with keys of its own).
        const other = await push.subscribe();
        const r = await http(s.url, "POST", "/api/agent/push/subscriptions", {
          token: T.globex.owner.agent,
          body: { endpoint: amy.endpoint, keys: other.keys },
        });
        assertEquals(r.status, 201, r.text);
        assertEquals(r.body.created, true);
        assertOk(r.body.id !== amy.rowId);
        const rows = await s.deps.sql<{ id: number; email: string }[]>`
          SELECT s.id, u.email FROM push_subscriptions s JOIN users u ON u.id = s.user_id
           WHERE s.endpoint = ${amy.endpoint} ORDER BY s.id`;
        assertEquals(rows.map((row) => ({ ...row })), [
          { id: amy.rowId, email: EMAIL.acmeAgent },
          { id: r.body.id, email: EMAIL.globexOwner },
        ]);
        // Its own row only: Amy's keeps Amy's alerts (the next steps) and keys.
        await s.deps.sql`DELETE FROM push_subscriptions WHERE id = ${r.body.id}`;
      },
    );

    await t.step("visitor_arrived: a new visitor's first heartbeat", async () => {
      const visitor = `arriving-${crypto.randomUUID()}`;
      const beat = () =>
        http(s.url, "POST", `/widget/${KEY}/heartbeat`, {
          body: { visitor_id: visitor, chat_open: false, page_url: "https://acme.test/pricing" },
          headers: freshIp(),
        });
      assertEquals((await beat()).status, 200);
      const got = await push.waitFor((p) =>
        p.subscriptionId === amy.id && p.payload.kind === "visitor_arrived" &&
        p.payload.url.endsWith(encodeURIComponent(visitor))
      );
      assertEquals(got.payload.title, "New visitor on Acme Helper");
      assertEquals(got.payload.body, "Browsing https://acme.test/pricing");
      assertEquals(got.payload.conversation_id, null);
      assertEquals(got.vapid.publicKey, vapid.publicKey);
      assertEquals(got.vapid.sub, "mailto:ops@parley.test");
      assertEquals(got.vapid.aud, push.origin);
      assertEquals(got.headers.get("content-encoding"), "aes128gcm");
      // A second heartbeat is not an arrival.
      assertEquals((await beat()).status, 200);
      await noneFor((p) =>
        p.payload.kind === "visitor_arrived" && p.payload.url.endsWith(visitor) &&
        p !== got && p.subscriptionId === amy.id
      );
    });

    await t.step("chat_started: a visitor's first message opens a conversation", async () => {
      const got = await push.waitFor(to(amy, "chat_started", chat.id));
      assertEquals(got.payload.title, "New chat");
      assertEquals(got.payload.body, "A visitor started a chat with Acme Helper.");
      assertMatch(got.payload.url, new RegExp(`/inbox\\?conversation=${chat.id}$`));
      await push.waitFor(to(abe, "chat_started", chat.id));
      // Another workspace's agent hears nothing of it.
      await noneFor((p) => p.subscriptionId === globex.id);
    });

    await t.step("handoff_requested: a visitor asks for a person", async () => {
      await handoff(chat);
      const got = await push.waitFor(to(amy, "handoff_requested", chat.id));
      assertEquals(got.payload.title, "A visitor asks for a person");
      await push.waitFor(to(abe, "handoff_requested", chat.id));
    });

    await t.step("visitor_message: unassigned and waiting for a human, every agent", async () => {
      await say(chat, "Is anyone there?");
      const got = await push.waitFor(to(amy, "visitor_message", chat.id));
      assertEquals(got.payload.body, "Is anyone there?");
      assertEquals(got.payload.title, "New message");
      await push.waitFor(to(abe, "visitor_message", chat.id));
    });

    await t.step("sla_breach: waiting past the threshold, raised once", async () => {
      // The wait began 10 minutes ago (default threshold 5): the 1 s check finds it.
      await s.deps.sql`
        UPDATE conversations SET handoff_requested_at = now() - interval '10 minutes'
         WHERE public_id = ${chat.id}`;
      const got = await push.waitFor(to(amy, "sla_breach", chat.id));
      assertEquals(got.payload.title, "A visitor has waited too long");
      assertMatch(got.payload.body, /waited 1\d min/);
      await push.waitFor(to(abe, "sla_breach", chat.id));
      await new Promise((r) => setTimeout(r, 2500)); // two more checks
      assertEquals(push.received.filter(to(amy, "sla_breach", chat.id)).length, 1);
      // A workspace threshold above the wait raises nothing.
      const other = await newChat();
      await s.deps.sql`UPDATE workspaces SET sla_breach_minutes = 60 WHERE slug = 'acme'`;
      await handoff(other);
      await s.deps.sql`
        UPDATE conversations SET handoff_requested_at = now() - interval '10 minutes'
         WHERE public_id = ${other.id}`;
      await noneFor(to(amy, "sla_breach", other.id), 2500);
      await s.deps.sql`UPDATE workspaces SET sla_breach_minutes = NULL WHERE slug = 'acme'`;
    });

    await t.step("visitor_message: the owner and watchers only, once assigned", async () => {
      const owned = await newChat();
      const take = await http(
        s.url,
        "POST",
        `/api/agent/conversations/${owned.id}/takeover`,
        { token: AMY, body: {} },
      );
      assertEquals(take.status, 200, take.text);
      await say(owned, "Thanks for taking this");
      await push.waitFor(to(amy, "visitor_message", owned.id));
      await noneFor(to(abe, "visitor_message", owned.id));
      const w = await http(s.url, "POST", `/api/agent/conversations/${owned.id}/watch`, {
        token: ABE,
        body: { watching: true },
      });
      assertEquals(w.status, 200, w.text);
      await say(owned, "One more thing");
      const watched = await push.waitFor((p) =>
        to(abe, "visitor_message", owned.id)(p) && p.payload.body === "One more thing"
      );
      assertEquals(watched.payload.conversation_id, owned.id);
      // An unassigned conversation the AI handles tells no one of each message.
      await noneFor(to(amy, "visitor_message", (await newChat()).id));
    });

    const expectStopped = async (prefs: Record<string, unknown>, undo: Record<string, unknown>) => {
      await setPrefs(AMY, prefs);
      const c = await newChat();
      await push.waitFor(to(abe, "chat_started", c.id));
      await noneFor(to(amy, "chat_started", c.id), 600);
      await setPrefs(AMY, undo);
      const d = await newChat();
      await push.waitFor(to(amy, "chat_started", d.id));
    };

    await t.step("the master switch stops push", async () => {
      await expectStopped({ push_enabled: false }, { push_enabled: true });
    });

    await t.step("a disabled event stops push", async () => {
      await expectStopped(
        { events: { chat_started: { push: false } } },
        { events: { chat_started: { push: true } } },
      );
    });

    await t.step("quiet hours in the agent's time zone stop push", async () => {
      const tz = "Pacific/Auckland";
      const parts = new Intl.DateTimeFormat("en-GB", {
        timeZone: tz,
        hour: "2-digit",
        minute: "2-digit",
        hourCycle: "h23",
      }).format(new Date()).split(":").map(Number);
      const now = parts[0]! * 60 + parts[1]!;
      const hm = (m: number) => {
        const x = (m + 1440) % 1440;
        return `${String(Math.floor(x / 60)).padStart(2, "0")}:${String(x % 60).padStart(2, "0")}`;
      };
      await expectStopped(
        { quiet_hours_start: hm(now - 60), quiet_hours_end: hm(now + 60), quiet_hours_tz: tz },
        // The same window in a zone where it is not now (12 hours away) lets alerts through.
        { quiet_hours_start: hm(now - 60 + 720), quiet_hours_end: hm(now + 60 + 720) },
      );
      await setPrefs(AMY, { quiet_hours_start: null, quiet_hours_end: null });
    });

    await t.step("do-not-disturb stops push until cancelled", async () => {
      await expectStopped({ dnd_minutes: 30 }, { dnd_minutes: 0 });
    });

    await t.step("the bot filter stops alerts of other bots", async () => {
      const [helper] = await s.deps.sql<{ id: number }[]>`
        SELECT id FROM chatbots WHERE public_key = 'acme-helper'`;
      const [sleeper] = await s.deps.sql<{ id: number }[]>`
        SELECT id FROM chatbots WHERE public_key = 'acme-sleeper'`;
      await expectStopped({ chatbot_filter: [sleeper!.id] }, { chatbot_filter: [helper!.id] });
      await setPrefs(AMY, { chatbot_filter: [] });
    });

    await t.step("a push service answering 5xx is retried with backoff", async () => {
      push.respondWith(amy.id, 503, 500);
      const c = await newChat();
      const got = await push.waitFor(to(amy, "chat_started", c.id), 15_000);
      assertEquals(push.received.filter(to(amy, "chat_started", c.id)).length, 1);
      assertOk(got);
      assertEquals(await subscriptionCount(amy.rowId), 1);
    });

    await t.step("a push service that does not answer in time is retried", async () => {
      push.stallNext(amy.id, 3000);
      const c = await newChat();
      await push.waitFor(to(amy, "chat_started", c.id), 15_000);
      assertEquals(push.received.filter(to(amy, "chat_started", c.id)).length, 1);
    });

    await t.step("410 and 404 from the push service remove the subscription", async () => {
      const gone = await subscribe(AMY);
      const lost = await subscribe(AMY);
      push.respondWith(gone.id, 410);
      push.respondWith(lost.id, 404);
      const c = await newChat();
      await push.waitFor(to(amy, "chat_started", c.id));
      const until = Date.now() + 30_000; // a deadline for a loaded CI machine, not a timing
      while (
        ((await subscriptionCount(gone.rowId)) + (await subscriptionCount(lost.rowId))) > 0
      ) {
        assertOk(Date.now() < until, "the subscriptions were not removed");
        await new Promise((r) => setTimeout(r, 100));
      }
      assertEquals(await subscriptionCount(amy.rowId), 1);
    });

    await t.step("logging out removes the subscriptions that token registered", async () => {
      const login = await http(s.url, "POST", "/api/agent/login", {
        body: { email: EMAIL.acmeAgent, password: PASSWORD, device_name: "Tablet" },
        headers: { "x-forwarded-for": "203.0.113.77" },
      });
      assertEquals(login.status, 200, login.text);
      const tablet = await subscribe(login.body.token);
      const [row] = await s.deps.sql<{ device_name: string }[]>`
        SELECT device_name FROM push_subscriptions WHERE id = ${tablet.rowId}`;
      assertEquals(row!.device_name, "Tablet"); // the token's device when none is sent
      // A refreshed token takes the device's subscriptions along.
      const refreshed = await http(s.url, "POST", "/api/agent/refresh", {
        token: login.body.token,
        body: {},
      });
      assertEquals(refreshed.status, 200, refreshed.text);
      const out = await http(s.url, "POST", "/api/agent/logout", { token: refreshed.body.token });
      assertEquals(out.status, 200);
      assertEquals(await subscriptionCount(tablet.rowId), 0);
      assertEquals(await subscriptionCount(amy.rowId), 1); // the other device keeps its own
    });

    await t.step("a revoked token's device gets no more pushes", async () => {
      const login = await http(s.url, "POST", "/api/agent/login", {
        body: { email: EMAIL.acmeAgent, password: PASSWORD, device_name: "Old phone" },
        headers: { "x-forwarded-for": "203.0.113.78" },
      });
      assertEquals(login.status, 200, login.text);
      const old = await subscribe(login.body.token);
      await s.deps.sql`
        UPDATE access_tokens SET revoked_at = now()
         WHERE id = ${Number(String(login.body.token).split("|")[0])}`;
      const c = await newChat();
      await push.waitFor(to(amy, "chat_started", c.id));
      await noneFor(to(old, "chat_started", c.id));
    });

    await t.step("registration is limited to 20 a minute per user", async () => {
      const body = { endpoint: "https://push.example.com/limit", keys: { p256dh: "a", auth: "b" } };
      let last = 0;
      for (let i = 0; i < 20 && last !== 429; i++) {
        last = (await http(s.url, "POST", "/api/agent/push/subscriptions", { token: ABE, body }))
          .status;
      }
      const r = await http(s.url, "POST", "/api/agent/push/subscriptions", { token: ABE, body });
      assertEquals(r.status, 429);
      assertOk(r.headers.get("retry-after"));
    });

    assertEquals(push.rejected, []);
  } finally {
    await s.stop();
    await push.stop();
    await fake.close();
  }
});

Deno.test(
  "push without VAPID keys, and keys generated under DATA_DIR",
  serverTestOptions,
  async (t) => {
    await t.step("no keys: configured false, and registering is 503", async () => {
      const off = await startTestServer({ seed: standardSeed(), env: { VAPID_GENERATE: "0" } });
      try {
        const v = await http(off.url, "GET", "/api/agent/push/vapid", { token: AMY });
        assertEquals(v.status, 200);
        assertEquals(v.body, { configured: false, public_key: null });
        const r = await http(off.url, "POST", "/api/agent/push/subscriptions", {
          token: AMY,
          body: { endpoint: "https://push.example.com/x", keys: { p256dh: "a", auth: "b" } },
        });
        assertEquals(r.status, 503);
        assertMatch(r.body.message, /not configured.*VAPID/);
      } finally {
        await off.stop();
      }
    });

    await t.step("generated once and kept under DATA_DIR", async () => {
      const on = await startTestServer({ seed: standardSeed(), env: { VAPID_GENERATE: "1" } });
      try {
        const v = await http(on.url, "GET", "/api/agent/push/vapid", { token: AMY });
        assertEquals(v.body.configured, true);
        const stored = JSON.parse(await Deno.readTextFile(`${on.dataDir}/vapid_keys.json`));
        assertEquals(stored.publicKey, v.body.public_key);
        assertMatch(v.body.public_key, /^[A-Za-z0-9_-]{87}$/);
      } finally {
        await on.stop();
      }
    });
  },
);
