/**
 * POST /widget/{key}/stream: event order and payloads, refusals as plain JSON
 * before streaming, provider failures and disconnects mid-answer (the visitor
 * message is never lost), human ownership, identity tokens, limits.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import {
  freshIp,
  postStream,
  signJwt,
  streamUntil,
  takeOver,
  WIDGET_ENV,
} from "./widget_client.ts";

const SECRET = "acme-identity-secret";
const KEY = "acme-helper";
const nowSec = () => Math.floor(Date.now() / 1000);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let visitorSeq = 0;
const newVisitor = () => `v_stream_${++visitorSeq}_${crypto.randomUUID().slice(0, 8)}`;

Deno.test("widget stream", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Our support desk is open Monday to Friday." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  const snapshot = (visitorId: string, conversationId: string) =>
    http(
      s.url,
      "GET",
      `/widget/${KEY}/conversation?visitor_id=${visitorId}&conversation_id=${conversationId}`,
      { headers: freshIp() },
    );
  try {
    await t.step("events come in order: meta, deltas, done, with the stored ids", async () => {
      const visitor = newVisitor();
      const r = await postStream(s.url, KEY, {
        visitor_id: visitor,
        message: "When are you open?",
      });
      assertEquals(r.status, 200);
      assertMatch(r.headers.get("content-type")!, /^text\/event-stream/);
      assertEquals(r.headers.get("cache-control"), "no-cache, no-transform");
      assertEquals(r.headers.get("x-ratelimit-limit"), "20");
      const names = r.events.map((e) => e.event);
      assertEquals(names[0], "meta");
      assertEquals(names.at(-1), "done");
      assertOk(names.slice(1, -1).every((n) => n === "delta"), names.join(","));
      assertOk(names.length >= 3);
      const meta = r.events[0]!.data;
      assertEquals(Object.keys(meta).sort(), ["conversation_id", "status", "visitor_message_id"]);
      assertEquals(meta.status, "bot");
      assertMatch(meta.conversation_id, /^[0-9a-f-]{36}$/);
      const text = r.events.filter((e) => e.event === "delta").map((e) => e.data.delta).join("");
      assertEquals(text, "Our support desk is open Monday to Friday.");
      const done = r.events.at(-1)!.data;
      assertEquals(Object.keys(done).sort(), ["message_id", "source", "sources"]);
      assertEquals(done.source, "ai");
      assertOk(done.sources.length > 0, "knowledge sources are cited");
      assertOk(done.sources.every((x: { title: string }) => typeof x.title === "string"));
      assertOk(done.sources.every((x: object) => "url" in x));
      const snap = await snapshot(visitor, meta.conversation_id);
      assertEquals(snap.status, 200);
      assertEquals(snap.body.messages.map((m: { id: number }) => m.id), [
        meta.visitor_message_id,
        done.message_id,
      ]);
      assertEquals(snap.body.messages[1].content, text);
    });

    await t.step("a message continues the visitor's conversation", async () => {
      const visitor = newVisitor();
      const first = await postStream(s.url, KEY, { visitor_id: visitor, message: "Hello" });
      const id = first.events[0]!.data.conversation_id;
      const second = await postStream(s.url, KEY, {
        visitor_id: visitor,
        message: "And shipping?",
        conversation_id: id,
      });
      assertEquals(second.events[0]!.data.conversation_id, id);
      const snap = await snapshot(visitor, id);
      assertEquals(snap.body.messages.length, 4);
      // The AI saw the earlier turn.
      const last = fake.requests.at(-1)!;
      assertOk(last.messages.some((m) => m.content === "Hello"));
    });

    await t.step("another visitor's conversation id is 404 JSON and stores nothing", async () => {
      const owner = newVisitor();
      const first = await postStream(s.url, KEY, { visitor_id: owner, message: "Mine" });
      const id = first.events[0]!.data.conversation_id;
      const r = await postStream(s.url, KEY, {
        visitor_id: newVisitor(),
        message: "Let me in",
        conversation_id: id,
      });
      assertEquals(r.status, 404);
      assertMatch(r.headers.get("content-type")!, /application\/json/);
      assertEquals(typeof r.json.message, "string");
      const snap = await snapshot(owner, id);
      assertEquals(snap.body.messages.length, 2);
    });

    await t.step("rejections before streaming are plain JSON", async () => {
      const unknown = await postStream(s.url, "no-such-bot", { visitor_id: "v1", message: "Hi" });
      assertEquals(unknown.status, 404);
      assertEquals(typeof unknown.json.message, "string");
      const inactive = await postStream(s.url, "acme-sleeper", { visitor_id: "v1", message: "Hi" });
      assertEquals(inactive.status, 404);
      assertEquals(inactive.json.message, unknown.json.message);
      const blank = await postStream(s.url, KEY, { visitor_id: "v1", message: "   \n\t " });
      assertEquals(blank.status, 422);
      assertEquals(blank.json.errors.message, ["The message field must not be whitespace only."]);
      const missing = await postStream(s.url, KEY, {});
      assertEquals(missing.status, 422);
      assertEquals(missing.json.errors.visitor_id, ["The visitor id field is required."]);
      assertEquals(missing.json.errors.message, ["The message field is required."]);
      const long = await postStream(s.url, KEY, {
        visitor_id: "x".repeat(101),
        message: "y".repeat(4001),
        conversation_id: "not-a-uuid",
        identity: "z".repeat(4001),
      });
      assertEquals(long.status, 422);
      assertEquals(Object.keys(long.json.errors).sort(), [
        "conversation_id",
        "identity",
        "message",
        "visitor_id",
      ]);
      assertMatch(long.json.errors.message[0], /4000 characters/);
      const email = await postStream(s.url, KEY, {
        visitor_id: "v1",
        message: "Hi",
        meta: { visitor: { email: "not-an-email" } },
      });
      assertEquals(email.status, 422);
      assertOk(email.json.errors["meta.visitor.email"]);
      const notJson = await postStream(s.url, KEY, "{nope");
      assertEquals(notJson.status, 400);
      assertEquals(notJson.json.message, "The request body is not valid JSON.");
      const huge = await postStream(s.url, KEY, {
        visitor_id: "v1",
        message: "Hi",
        meta: { blob: "x".repeat(70_000) },
      });
      assertEquals(huge.status, 413);
      assertMatch(huge.json.message, /^The request body is too large/);
    });

    await t.step(
      "a NUL character is 422 naming the field, not a 500, and stores nothing",
      async () => {
        const visitor = newVisitor();
        for (
          const [body, field] of [
            [{ visitor_id: visitor, message: "Hi\u0000there" }, "message"],
            [{ visitor_id: `${visitor}\u0000`, message: "Hi" }, "visitor_id"],
            [{ visitor_id: visitor, message: "Hi", meta: { page: "x\u0000" } }, "meta.page"],
          ] as const
        ) {
          const r = await postStream(s.url, KEY, body);
          assertEquals(r.status, 422, r.text);
          assertEquals(Object.keys(r.json.errors), [field]);
        }
        const none = await http(s.url, "GET", `/widget/${KEY}/conversation?visitor_id=${visitor}`, {
          headers: freshIp(),
        });
        assertEquals(none.status, 404);
      },
    );

    await t.step("limits count characters, not UTF-16 units: an emoji is one", async () => {
      const visitor = "🙂".repeat(100);
      const ok = await postStream(s.url, KEY, { visitor_id: visitor, message: "🙂".repeat(4000) });
      assertEquals(ok.status, 200, ok.text);
      assertEquals(ok.events.at(-1)!.event, "done");
      const snap = await http(
        s.url,
        "GET",
        `/widget/${KEY}/conversation?visitor_id=${encodeURIComponent(visitor)}`,
        { headers: freshIp() },
      );
      assertEquals(snap.status, 200);
      assertEquals([...snap.body.messages[0].content].length, 4000);
      const long = await postStream(s.url, KEY, {
        visitor_id: "🙂".repeat(101),
        message: "🙂".repeat(4001),
      });
      assertEquals(long.status, 422);
      assertEquals(long.json.errors, {
        visitor_id: ["The visitor id field must not be greater than 100 characters."],
        message: ["The message field must not be greater than 4000 characters."],
      });
    });

    await t.step("a malformed key in the path is 404 JSON; GET on the stream is 405", async () => {
      const bad = await postStream(s.url, "%E0%A4%A", { visitor_id: "v1", message: "Hi" });
      assertEquals([bad.status, bad.json], [404, { message: "Not found." }]);
      const get = await http(s.url, "GET", `/widget/${KEY}/stream`, { headers: freshIp() });
      assertEquals(get.status, 405);
      assertEquals(get.headers.get("allow"), "POST");
      assertEquals(get.body, { message: "The GET method is not supported for this route." });
    });

    await t.step(
      "the 21st stream in a minute from one IP is 429 JSON with Retry-After",
      async () => {
        const ip = freshIp();
        for (let i = 0; i < 20; i++) {
          const r = await postStream(s.url, KEY, {}, ip); // 422s count too
          assertEquals(r.status, 422);
        }
        const r = await postStream(s.url, KEY, { visitor_id: "v1", message: "Hi" }, ip);
        assertEquals(r.status, 429);
        assertEquals(r.headers.get("x-ratelimit-remaining"), "0");
        assertOk(Number(r.headers.get("retry-after")) >= 1);
        assertEquals(typeof r.json.message, "string");
      },
    );

    await t.step(
      "provider failure mid-answer ends with error and keeps the visitor message",
      async () => {
        fake.mode = "fail_mid_stream";
        fake.reply = "one two three four five six seven eight";
        fake.chunkDelayMs = 20; // the first half reaches us before the connection drops
        try {
          const visitor = newVisitor();
          const r = await postStream(s.url, KEY, { visitor_id: visitor, message: "Break please" });
          assertEquals(r.status, 200);
          const names = r.events.map((e) => e.event);
          assertEquals(names[0], "meta");
          assertEquals(names.at(-1), "error");
          assertOk(names.includes("delta"), "some text arrived before the failure");
          assertEquals(Object.keys(r.events.at(-1)!.data).sort(), ["code", "message"]);
          assertEquals(r.events.at(-1)!.data.code, "provider_unreachable");
          const snap = await snapshot(visitor, r.events[0]!.data.conversation_id);
          assertEquals(snap.body.messages.map((m: { role: string }) => m.role), ["visitor"]);
          assertEquals(snap.body.messages[0].content, "Break please");
        } finally {
          fake.mode = "ok";
          fake.chunkDelayMs = 0;
        }
      },
    );

    await t.step("a refused key gives meta then error provider_key_refused", async () => {
      fake.mode = "unauthorized";
      try {
        const r = await postStream(s.url, KEY, { visitor_id: newVisitor(), message: "Hi" });
        assertEquals(r.events.map((e) => e.event), ["meta", "error"]);
        assertEquals(r.events[1]!.data.code, "provider_key_refused");
        assertMatch(r.events[1]!.data.message, /isn't available right now/);
      } finally {
        fake.mode = "ok";
      }
    });

    await t.step(
      "a visitor who disconnects aborts the provider call; their message stays",
      async () => {
        fake.reply = Array.from({ length: 60 }, (_, i) => `word${i}`).join(" ");
        fake.chunkDelayMs = 40;
        const abortedBefore = fake.aborted;
        try {
          const visitor = newVisitor();
          const seen = await streamUntil(s.url, KEY, { visitor_id: visitor, message: "Long one" }, (
            events,
          ) => events.some((e) => e.event === "delta"));
          assertEquals(seen[0]!.event, "meta");
          for (let i = 0; i < 50 && fake.aborted === abortedBefore; i++) await sleep(20);
          assertEquals(fake.aborted, abortedBefore + 1, "the provider stream was cancelled");
          await sleep(100);
          const snap = await snapshot(visitor, seen[0]!.data.conversation_id);
          assertEquals(snap.body.messages.map((m: { role: string }) => m.role), ["visitor"]);
        } finally {
          fake.chunkDelayMs = 0;
          fake.reply = "Our support desk is open Monday to Friday.";
        }
      },
    );

    await t.step("while a human owns the conversation no AI reply is generated", async () => {
      const visitor = newVisitor();
      const first = await postStream(s.url, KEY, { visitor_id: visitor, message: "Hi" });
      const id = first.events[0]!.data.conversation_id;
      await takeOver(s.deps, id);
      const calls = fake.requests.length;
      const r = await postStream(s.url, KEY, {
        visitor_id: visitor,
        message: "Are you human?",
        conversation_id: id,
      });
      assertEquals(r.events.map((e) => e.event), ["meta", "done"]);
      assertEquals(r.events[0]!.data.status, "agent");
      const done = r.events[1]!.data;
      assertEquals(done.message_id, null);
      assertEquals(done.source, "human");
      assertEquals(done.sources, []);
      assertMatch(done.note, /human/i);
      assertEquals(fake.requests.length, calls, "the provider was not called");
    });

    await t.step("a valid identity token's name and e-mail are trusted", async () => {
      const token = await signJwt({
        sub: "user-42",
        name: "Ada Lovelace",
        email: "ada@example.com",
        exp: nowSec() + 600,
      }, SECRET);
      const r = await postStream(s.url, KEY, {
        visitor_id: newVisitor(),
        message: "Hi, it's me",
        identity: token,
        meta: { visitor: { name: "Someone Else", email: "fake@example.com" }, page: "/pricing" },
      });
      assertEquals(r.status, 200);
      const [row] = await s.deps.sql<
        { visitor_name: string; visitor_email: string; meta: Record<string, unknown> }[]
      >`SELECT visitor_name, visitor_email, meta FROM conversations
         WHERE public_id = ${r.events[0]!.data.conversation_id}`;
      assertEquals(row!.visitor_name, "Ada Lovelace");
      assertEquals(row!.visitor_email, "ada@example.com");
      assertEquals(row!.meta.identity, { sub: "user-42", verified: true });
      assertEquals(row!.meta.page, "/pricing");
    });

    await t.step("pre-chat details without a token are stored as the visitor's claim", async () => {
      const r = await postStream(s.url, KEY, {
        visitor_id: newVisitor(),
        message: "Hi",
        meta: { visitor: { name: "Bob", email: "bob@example.com" }, identity: { sub: "forged" } },
      });
      const [row] = await s.deps.sql<
        { visitor_name: string; meta: Record<string, unknown> }[]
      >`SELECT visitor_name, meta FROM conversations
         WHERE public_id = ${r.events[0]!.data.conversation_id}`;
      assertEquals(row!.visitor_name, "Bob");
      assertEquals(row!.meta.identity, undefined, "a client cannot claim a verified identity");
      const empty = await postStream(s.url, KEY, {
        visitor_id: newVisitor(),
        message: "Hi",
        meta: { visitor: null, page_url: "https://shop.example/" },
      });
      assertEquals(empty.status, 200, "an empty pre-chat form is no error");
    });

    await t.step("invalid identity tokens are 422 on identity and store nothing", async () => {
      const claims = { sub: "user-42", name: "Ada", exp: nowSec() + 600 };
      const cases: [string, string, RegExp][] = [
        ["expired", await signJwt({ ...claims, exp: nowSec() - 3600 }, SECRET), /expired/],
        ["wrong signature", await signJwt(claims, "not-the-secret"), /signature/],
        ["alg none", await signJwt(claims, SECRET, { alg: "none" }), /HS256/],
        ["malformed", "abc.def", /malformed/],
        ["no sub", await signJwt({ exp: nowSec() + 600 }, SECRET), /sub/],
        ["no exp", await signJwt({ sub: "u" }, SECRET), /exp/],
        [
          "far future",
          await signJwt({ ...claims, exp: nowSec() + 30 * 86400 }, SECRET),
          /24 hours/,
        ],
        ["not yet", await signJwt({ ...claims, nbf: nowSec() + 3600 }, SECRET), /not valid yet/],
      ];
      const visitor = newVisitor();
      for (const [name, token, reason] of cases) {
        const r = await postStream(s.url, KEY, {
          visitor_id: visitor,
          message: "Hi",
          identity: token,
        });
        assertEquals(r.status, 422, name);
        assertEquals(Object.keys(r.json.errors), ["identity"], name);
        assertMatch(r.json.errors.identity[0], reason, name);
      }
      const snap = await http(s.url, "GET", `/widget/${KEY}/conversation?visitor_id=${visitor}`, {
        headers: freshIp(),
      });
      assertEquals(snap.status, 404, "no conversation was started");
    });

    await t.step("an identity token for a workspace without a secret is 422", async () => {
      const token = await signJwt({ sub: "u", exp: nowSec() + 600 }, SECRET);
      const r = await postStream(s.url, "globex-bot", {
        visitor_id: newVisitor(),
        message: "Hi",
        identity: token,
      });
      assertEquals(r.status, 422);
      assertMatch(r.json.errors.identity[0], /not configured/);
    });

    await t.step("CORS: preflight is 204 and the stream allows any origin", async () => {
      const pre = await fetch(`${s.url}/widget/${KEY}/stream`, {
        method: "OPTIONS",
        headers: { origin: "https://shop.example", "access-control-request-method": "POST" },
      });
      await pre.body?.cancel();
      assertEquals(pre.status, 204);
      assertEquals(pre.headers.get("access-control-allow-origin"), "*");
      assertMatch(pre.headers.get("access-control-allow-headers")!, /Content-Type/);
      const r = await postStream(s.url, KEY, { visitor_id: newVisitor(), message: "Hi" });
      assertEquals(r.headers.get("access-control-allow-origin"), "*");
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});

Deno.test("widget stream: monthly quota", serverTestOptions, async (t) => {
  const fake = startFakeAi();
  const s = await startTestServer({
    seed: standardSeed({ monthlyLimit: 1 }),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
  });
  try {
    await t.step("an exhausted quota is 429 JSON before streaming and stores nothing", async () => {
      const visitor = newVisitor();
      const ok = await postStream(s.url, KEY, { visitor_id: visitor, message: "First" });
      assertEquals(ok.status, 200);
      const id = ok.events[0]!.data.conversation_id;
      const r = await postStream(s.url, KEY, {
        visitor_id: visitor,
        message: "Second",
        conversation_id: id,
      });
      assertEquals(r.status, 429);
      assertEquals(typeof r.json.message, "string");
      const snap = await http(
        s.url,
        "GET",
        `/widget/${KEY}/conversation?visitor_id=${visitor}&conversation_id=${id}`,
        { headers: freshIp() },
      );
      assertEquals(snap.body.messages.map((m: { content: string }) => m.content), [
        "First",
        "This is the fake answer.",
      ]);
    });

    await t.step(
      "at the limit, a new conversation is refused without calling the provider",
      async () => {
        const calls = fake.requests.length;
        const r = await postStream(s.url, KEY, { visitor_id: newVisitor(), message: "Hello?" });
        assertEquals(r.status, 429);
        await new Promise((done) => setTimeout(done, 50)); // a stray call would have arrived by now
        assertEquals(fake.requests.length, calls, "the provider was called for a refused turn");
      },
    );
  } finally {
    await s.stop();
    await fake.close();
  }
});
