/**
 * Agent actions beyond replying: tags, canned replies, notes, assign, watch,
 * block; every action's permission (the viewer seat and foreign tokens),
 * foreign conversations, tags and canned replies (404, never their data),
 * and validation (422 naming the field).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const KEY = "acme-helper";
const AMY = T.acme.agent.agent;
const OWNER = T.acme.owner.agent;
const VIEWER = T.acme.viewer.agent;
const GLOBEX = T.globex.owner.agent;

const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: standardSeed(),
  env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
});
let seq = 0;
const newVisitor = () => `v_act_${++seq}_${crypto.randomUUID().slice(0, 8)}`;
const get = (token: string, path: string) => http(s.url, "GET", `/api/agent${path}`, { token });
const post = (token: string, path: string, body?: unknown) =>
  http(s.url, "POST", `/api/agent${path}`, { token, body });
const del = (token: string, path: string) => http(s.url, "DELETE", `/api/agent${path}`, { token });
const active = async (token: string, id: string) =>
  (await get(token, `/conversations/${id}`)).body.active;

/** Every action that changes a conversation: method, path under /api/agent, body. */
function everyAction(id: string, userId: number, tagId: number): [string, string, unknown?][] {
  return [
    ["POST", `/conversations/${id}/reply`, { body: "hi" }],
    ["POST", `/conversations/${id}/takeover`],
    ["POST", `/conversations/${id}/release`],
    ["POST", `/conversations/${id}/resolve`],
    ["POST", `/conversations/${id}/reopen`],
    ["POST", `/conversations/${id}/notes`, { body: "hi" }],
    ["POST", `/conversations/${id}/assign`, { user_id: userId }],
    ["POST", `/conversations/${id}/watch`, { watching: true }],
    ["POST", `/conversations/${id}/block`, { blocked: true }],
    ["POST", `/conversations/${id}/tags`, { tag_id: tagId }],
    ["DELETE", `/conversations/${id}/tags/${tagId}`],
  ];
}

async function start(visitor = newVisitor(), key = KEY) {
  const r = await postStream(s.url, key, { visitor_id: visitor, message: "Hello" });
  assertEquals(r.status, 200);
  return { id: r.events[0]!.data.conversation_id as string, visitor };
}

Deno.test("agent actions", serverTestOptions, async (t) => {
  const ids = async (token: string) => (await get(token, "/me")).body.user.id as number;
  const amyId = await ids(AMY);
  const ownerId = await ids(OWNER);
  const viewerId = await ids(VIEWER);
  const globexId = await ids(GLOBEX);
  const tagsOf = async (token: string) =>
    (await get(token, "/tags")).body.tags as { id: number; name: string; color: string }[];
  const acmeTags = await tagsOf(AMY);
  const globexTag = (await tagsOf(GLOBEX))[0]!;
  const billing = acmeTags.find((t) => t.name === "billing")!;

  await t.step("tags: the catalogue, attach with source manual, detach", async () => {
    assertEquals(acmeTags.map((t) => t.name), ["billing", "urgent"]);
    assertEquals(billing.color, "#f59e0b");
    const { id } = await start();
    const on = await post(AMY, `/conversations/${id}/tags`, { tag_id: billing.id });
    assertEquals([on.status, on.body], [200, { attached: billing.id }]);
    // Attaching twice changes nothing.
    assertEquals(
      (await post(AMY, `/conversations/${id}/tags`, { tag_id: billing.id })).status,
      200,
    );
    assertEquals((await active(AMY, id)).tags, [{ ...billing, source: "manual" }]);
    const row = (await get(AMY, "/inbox")).body.conversations.find((c: { id: string }) =>
      c.id === id
    );
    assertEquals(row.tags, [billing]);
    const off = await del(AMY, `/conversations/${id}/tags/${billing.id}`);
    assertEquals([off.status, off.body], [200, { detached: billing.id }]);
    assertEquals((await active(AMY, id)).tags, []);
  });

  await t.step("tags: outside the catalogue is 422 on attach and 404 on detach", async () => {
    const { id } = await start();
    const foreign = await post(AMY, `/conversations/${id}/tags`, { tag_id: globexTag.id });
    assertEquals(foreign.status, 422);
    assertOk(foreign.body.errors.tag_id);
    assertOk(!foreign.text.includes(globexTag.name));
    assertEquals((await post(AMY, `/conversations/${id}/tags`, { tag_id: 999999 })).status, 422);
    const bad = await post(AMY, `/conversations/${id}/tags`, { tag_id: "x" });
    assertEquals(bad.status, 422);
    assertOk(bad.body.errors.tag_id);
    assertEquals((await del(AMY, `/conversations/${id}/tags/${globexTag.id}`)).status, 404);
  });

  await t.step(
    "canned: shared ones plus the agent's own, most used first; use is counted",
    async () => {
      const amy = (await get(AMY, "/canned")).body.canned as { id: number; title: string }[];
      assertEquals(amy.map((c) => c.title).sort(), ["Amy's sign-off", "Hello"]);
      const owner = (await get(OWNER, "/canned")).body.canned as { id: number; title: string }[];
      assertEquals(owner.map((c) => c.title), ["Hello"], "another agent's private reply is hidden");
      const signOff = amy.find((c) => c.title === "Amy's sign-off")!;
      const hello = amy.find((c) => c.title === "Hello")!;
      for (let i = 0; i < 2; i++) {
        const r = await post(AMY, `/canned/${signOff.id}/used`);
        assertEquals([r.status, r.body], [200, { ok: true }]);
      }
      const ranked = (await get(AMY, "/canned")).body.canned as {
        title: string;
        shortcut: string;
        body: string;
      }[];
      assertEquals(ranked[0]!.title, "Amy's sign-off");
      assertEquals(ranked[0]!.shortcut, "/bye");
      assertEquals(ranked[0]!.body, "Bye from Amy");
      assertEquals((await post(OWNER, `/canned/${hello.id}/used`)).status, 200);
      const other = await post(OWNER, `/canned/${signOff.id}/used`);
      assertEquals(other.status, 403);
      assertEquals((await post(GLOBEX, `/canned/${hello.id}/used`)).status, 404);
      assertEquals((await post(AMY, `/canned/999999/used`)).status, 404);
      assertEquals((await post(VIEWER, `/canned/${hello.id}/used`)).status, 403);
    },
  );

  await t.step("notes are private: in `active.notes`, never in the visitor's widget", async () => {
    const { id, visitor } = await start();
    const r = await post(AMY, `/conversations/${id}/notes`, { body: "VIP customer, be kind" });
    assertEquals(r.status, 200);
    assertEquals(r.body.note.body, "VIP customer, be kind");
    assertEquals(r.body.note.author, "Amy Agent");
    const notes = (await active(OWNER, id)).notes;
    assertEquals(notes.map((n: { body: string; author: string }) => [n.body, n.author]), [[
      "VIP customer, be kind",
      "Amy Agent",
    ]]);
    const snap = await http(
      s.url,
      "GET",
      `/widget/${KEY}/conversation?visitor_id=${visitor}&conversation_id=${id}`,
      { headers: freshIp() },
    );
    assertEquals(snap.status, 200);
    assertOk(!snap.text.includes("VIP customer"));
    const beat = await http(s.url, "POST", `/widget/${KEY}/heartbeat`, {
      headers: freshIp(),
      body: { visitor_id: visitor, conversation_id: id, chat_open: true },
    });
    assertOk(!beat.text.includes("VIP customer"));
    const blank = await post(AMY, `/conversations/${id}/notes`, { body: "   " });
    assertEquals(blank.status, 422);
    assertOk(blank.body.errors.body);
    const long = await post(AMY, `/conversations/${id}/notes`, { body: "x".repeat(4001) });
    assertEquals(long.status, 422);
    assertOk(long.body.errors.body);
  });

  await t.step(
    "assign: to an agent of the workspace, refused for anyone else, null unassigns",
    async () => {
      const { id } = await start();
      const r = await post(OWNER, `/conversations/${id}/assign`, { user_id: amyId });
      assertEquals(r.status, 200);
      assertEquals(r.body, { status: "agent", assigned_to: { id: amyId, name: "Amy Agent" } });
      const mine = (await get(AMY, "/inbox?filter=mine")).body.conversations;
      assertOk(mine.some((c: { id: string }) => c.id === id));
      const forOwner = await active(OWNER, id);
      assertEquals([forOwner.group, forOwner.mine, forOwner.assigned_to], [
        "team",
        false,
        "Amy Agent",
      ]);
      assertEquals(forOwner.routed_by, "assign");
      for (const userId of [viewerId, globexId, 999999]) {
        const refused = await post(OWNER, `/conversations/${id}/assign`, { user_id: userId });
        assertEquals(refused.status, 422, `user ${userId}`);
        assertOk(refused.body.errors.user_id);
      }
      const back = await post(OWNER, `/conversations/${id}/assign`, { user_id: ownerId });
      assertEquals(back.body.assigned_to.name, "Ada Owner");
      const none = await post(OWNER, `/conversations/${id}/assign`, { user_id: null });
      assertEquals(none.body, { status: "agent", assigned_to: null });
      assertEquals((await active(AMY, id)).group, "team");
      const missing = await post(OWNER, `/conversations/${id}/assign`, {});
      assertEquals(missing.status, 422);
      assertOk(missing.body.errors.user_id);
    },
  );

  await t.step("watch toggles the caller in `watchers` and `watching`", async () => {
    const { id } = await start();
    const on = await post(AMY, `/conversations/${id}/watch`, { watching: true });
    assertEquals([on.status, on.body], [200, { watching: true }]);
    const a = await active(AMY, id);
    assertEquals(a.watching, true);
    assertEquals(a.watchers, [{ id: amyId, name: "Amy Agent" }]);
    assertEquals((await active(OWNER, id)).watching, false);
    assertEquals((await post(AMY, `/conversations/${id}/watch`, { watching: false })).body, {
      watching: false,
    });
    assertEquals((await active(AMY, id)).watchers, []);
    const bad = await post(AMY, `/conversations/${id}/watch`, { watching: "yes" });
    assertEquals(bad.status, 422);
    assertOk(bad.body.errors.watching);
  });

  await t.step(
    "a blocked visitor's widget messages are refused with 403 and no AI call",
    async () => {
      const { id, visitor } = await start();
      const r = await post(AMY, `/conversations/${id}/block`, { blocked: true });
      assertEquals([r.status, r.body], [200, { blocked: true }]);
      assertEquals((await active(AMY, id)).blocked, true);
      const asked = fake.requests.length;
      const refused = await postStream(s.url, KEY, {
        visitor_id: visitor,
        conversation_id: id,
        message: "spam spam spam",
      });
      assertEquals(refused.status, 403);
      assertEquals(typeof refused.json.message, "string");
      // A new conversation from the same visitor is refused too.
      const fresh = await postStream(s.url, KEY, { visitor_id: visitor, message: "new chat" });
      assertEquals(fresh.status, 403);
      assertEquals(fake.requests.length, asked);
      const a = await active(AMY, id);
      assertOk(!a.messages.some((m: { content: string }) => m.content.includes("spam")));
      assertEquals(a.events.map((e: { type: string }) => e.type), ["visitor_blocked"]);
      assertEquals((await post(AMY, `/conversations/${id}/block`, { blocked: false })).body, {
        blocked: false,
      });
      const again = await postStream(s.url, KEY, {
        visitor_id: visitor,
        conversation_id: id,
        message: "sorry",
      });
      assertEquals(again.status, 200);
    },
  );

  await t.step("every action needs handle-conversations: the viewer seat gets 403", async () => {
    const { id } = await start();
    for (const [method, path, body] of everyAction(id, amyId, billing.id)) {
      const viewer = await http(s.url, method, `/api/agent${path}`, { token: VIEWER, body });
      assertEquals(viewer.status, 403, `viewer ${method} ${path}`);
      const api = await http(s.url, method, `/api/agent${path}`, { token: T.acme.owner.api, body });
      assertEquals(api.status, 403, `api token ${method} ${path}`);
      const none = await http(s.url, method, `/api/agent${path}`, { body });
      assertEquals(none.status, 401, `no token ${method} ${path}`);
    }
    // Nothing happened to the conversation.
    const a = await active(AMY, id);
    assertEquals([a.status, a.messages.length, a.notes.length, a.tags.length], ["bot", 2, 0, 0]);
  });

  await t.step(
    "another workspace's conversation is 404 for every action, and untouched",
    async () => {
      const { id } = await start(newVisitor(), "globex-bot");
      const untouched = await active(GLOBEX, id);
      for (const [method, path, body] of everyAction(id, amyId, billing.id)) {
        const r = await http(s.url, method, `/api/agent${path}`, { token: AMY, body });
        assertEquals(r.status, 404, `${method} ${path}`);
        assertEquals(Object.keys(r.body), ["message"]);
        const unknown = path.replace(id, crypto.randomUUID());
        assertEquals(
          (await http(s.url, method, `/api/agent${unknown}`, { token: AMY, body })).status,
          404,
          `unknown ${method} ${path}`,
        );
      }
      const g = await active(GLOBEX, id);
      const state = (
        a: typeof g,
      ) => [
        a.status,
        a.messages.length,
        a.notes.length,
        a.watchers.length,
        a.blocked,
        a.events.length,
      ];
      assertEquals(state(g), state(untouched));
    },
  );

  await t.step("reply validation: whitespace, length and client_id limits are 422", async () => {
    const { id } = await start();
    const cases: [unknown, string][] = [
      [{ body: "   " }, "body"],
      [{}, "body"],
      [{ body: "x".repeat(4001) }, "body"],
      [{ body: "ok", client_id: "c".repeat(65) }, "client_id"],
      [{ body: 42 }, "body"],
    ];
    for (const [body, field] of cases) {
      const r = await post(AMY, `/conversations/${id}/reply`, body);
      assertEquals(r.status, 422, JSON.stringify(body).slice(0, 60));
      assertOk(r.body.errors[field], field);
    }
    // 4000 emoji are 4000 characters: accepted.
    const emoji = await post(AMY, `/conversations/${id}/reply`, { body: "😀".repeat(4000) });
    assertEquals(emoji.status, 200);
    assertEquals((await active(AMY, id)).messages.length, 3, "only the valid reply was stored");
  });
});

Deno.test("stop the agent actions test server", serverTestOptions, async () => {
  await s.stop();
  await fake.close();
});
