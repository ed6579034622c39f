/**
 * The agent inbox end to end: a visitor starts a conversation in the widget,
 * an agent sees it arrive with everything the service knows, opens it (read
 * for that agent only), answers, and the reply reaches the widget; sections,
 * counts and the 60-row cap; foreign ids; display formats.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const KEY = "acme-helper";
const AMY = T.acme.agent.agent;
const OWNER = T.acme.owner.agent;
const IPHONE_UA = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 " +
  "(KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1";

const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: standardSeed(),
  env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
});
let seq = 0;
const newVisitor = () => `v_inbox_${++seq}_${crypto.randomUUID().slice(0, 8)}`;
const agentGet = (token: string, path: string, headers: Record<string, string> = {}) =>
  http(s.url, "GET", `/api/agent${path}`, { token, headers });
const agentPost = (token: string, path: string, body?: unknown) =>
  http(s.url, "POST", `/api/agent${path}`, { token, body });

/** A visitor browses two pages on an iPhone, then writes in the widget. */
async function visitorStarts(visitor: string, message = "Hello, I need help with my order") {
  const ua = { ...freshIp(), "user-agent": IPHONE_UA };
  const beat = (page_url: string, page_title: string) =>
    http(s.url, "POST", `/widget/${KEY}/heartbeat`, {
      headers: ua,
      body: {
        visitor_id: visitor,
        page_url,
        page_title,
        referrer: "https://search.example/?q=acme",
        chat_open: true,
        locale: "fr-FR",
        timezone: "Europe/Paris",
      },
    });
  assertEquals((await beat("https://acme.test/", "Home")).status, 200);
  assertEquals((await beat("https://acme.test/pricing", "Pricing")).status, 200);
  const r = await postStream(s.url, KEY, {
    visitor_id: visitor,
    message,
    meta: { visitor: { name: "Vera Visitor", email: "vera@example.com" } },
  });
  assertEquals(r.status, 200);
  return r.events[0]!.data.conversation_id as string;
}

Deno.test("the agent inbox", serverTestOptions, async (t) => {
  const amyId = (await agentGet(AMY, "/me")).body.user.id as number;

  await t.step("a widget conversation arrives with its row and counts", async () => {
    const visitor = newVisitor();
    const id = await visitorStarts(visitor);
    const r = await agentGet(AMY, "/inbox");
    assertEquals(r.status, 200);
    assertEquals(
      Object.keys(r.body).sort(),
      ["active", "conversations", "counts", "groups", "list_limit", "listed"],
    );
    assertEquals(r.body.list_limit, 60);
    assertEquals(r.body.active, null);
    const row = r.body.conversations.find((c: { id: string }) => c.id === id);
    assertOk(row, "the new conversation is listed");
    assertEquals(Object.keys(row).sort(), [
      "assigned_to",
      "channel",
      "chatbot",
      "email",
      "escalated",
      "group",
      "handoff_state",
      "id",
      "last_at",
      "mine",
      "online",
      "preview",
      "resolution",
      "status",
      "tags",
      "unread",
      "visitor",
      "waiting_reason", // beyond the spec: why a waiting conversation needs a person
      "waiting_seconds",
    ]);
    assertEquals(row.chatbot, "Acme Helper");
    assertEquals(row.visitor, "Vera Visitor");
    assertEquals(row.email, "vera@example.com");
    assertEquals(row.status, "bot");
    assertEquals(row.channel, "widget");
    assertEquals(row.last_at, "just now");
    assertEquals(row.preview, "Happy to help.");
    assertEquals(row.escalated, false);
    assertEquals(row.unread, 1);
    assertEquals(row.group, "ai");
    assertEquals(row.handoff_state, "bot_active");
    assertEquals(row.assigned_to, null);
    assertEquals(row.mine, false);
    assertEquals(row.online, true);
    assertEquals(row.waiting_seconds, null);
    assertEquals(row.tags, []);
    assertOk(r.body.counts.all >= 1 && r.body.counts.ai >= 1 && r.body.counts.unread >= 1);
    assertEquals(r.body.listed, r.body.conversations.length);
  });

  await t.step(
    "opening a conversation fills `active` and marks it read for that agent only",
    async () => {
      const visitor = newVisitor();
      const id = await visitorStarts(visitor, "Where is my parcel?");
      const before = (await agentGet(AMY, "/inbox")).body.counts.unread as number;
      const r = await agentGet(AMY, `/conversations/${id}`, { "x-timezone": "Europe/Paris" });
      assertEquals(r.status, 200);
      const a = r.body.active;
      assertEquals(a.id, id);
      assertEquals(a.status, "bot");
      assertEquals(a.visitor, "Vera Visitor");
      assertEquals(a.visitor_id, visitor);
      assertEquals(a.email, "vera@example.com");
      assertEquals(a.phone, null);
      assertEquals(a.page, "https://acme.test/pricing");
      assertEquals(a.page_title, "Pricing");
      assertEquals(a.entry_page, "https://acme.test/");
      assertEquals(a.referrer, "https://search.example/?q=acme");
      assertEquals(a.page_views, 2);
      assertEquals(a.journey.map((j: { url: string }) => j.url), [
        "https://acme.test/",
        "https://acme.test/pricing",
      ]);
      assertEquals(a.locale, "fr-FR");
      assertEquals(a.timezone, "Europe/Paris");
      assertEquals(a.device, "mobile");
      assertEquals(a.browser, "Safari 17");
      assertEquals(a.os, "iOS 17.5");
      assertEquals(a.country, null, "unknown without a geo database: null, never invented");
      assertEquals(a.prechat, [
        { field: "name", value: "Vera Visitor" },
        { field: "email", value: "vera@example.com" },
      ]);
      assertEquals(a.msg_count, 2);
      assertEquals(a.messages.map((m: { role: string }) => m.role), ["visitor", "assistant"]);
      assertEquals(a.messages[0].content, "Where is my parcel?");
      for (const m of a.messages) assertMatch(m.at, /^\d\d:\d\d$/);
      assertMatch(a.joined, /^\d{1,2} [A-Z][a-z]{2} \d\d:\d\d$/);
      assertEquals(a.online, true);
      assertEquals(a.events, []);
      assertEquals(a.notes, []);
      assertEquals(a.watchers, []);
      assertEquals(a.watching, false);
      assertEquals(a.blocked, false);
      assertEquals(a.group, "ai");
      // Read for Amy, still unread for the owner.
      const amy = await agentGet(AMY, "/inbox");
      assertEquals(amy.body.counts.unread, before - 1);
      assertEquals(amy.body.conversations.find((c: { id: string }) => c.id === id).unread, 0);
      const owner = await agentGet(OWNER, "/inbox");
      assertEquals(owner.body.conversations.find((c: { id: string }) => c.id === id).unread, 1);
      // `?conversation=` on the inbox opens it the same way.
      const viaInbox = await agentGet(OWNER, `/inbox?conversation=${id}`);
      assertEquals(viaInbox.body.active.id, id);
      assertEquals(
        (await agentGet(OWNER, "/inbox")).body.conversations.find((c: { id: string }) =>
          c.id === id
        )
          .unread,
        0,
      );
    },
  );

  await t.step("an unknown or foreign conversation is `active: null`, never its data", async () => {
    const foreign = await postStream(s.url, "globex-bot", {
      visitor_id: newVisitor(),
      message: "Globex question",
    });
    const globexId = foreign.events[0]!.data.conversation_id as string;
    for (const id of [globexId, crypto.randomUUID(), "not-a-uuid"]) {
      const r = await agentGet(AMY, `/conversations/${id}`);
      assertEquals(r.status, 200, id);
      assertEquals(r.body.active, null, id);
      assertOk(!r.text.includes("Globex question"));
    }
    const globex = await agentGet(T.globex.owner.agent, "/inbox");
    assertOk(
      globex.body.conversations.every((c: { chatbot: string }) => c.chatbot === "Globex Bot"),
    );
  });

  await t.step(
    "an agent reply takes over, reaches the widget, and logs human_connected",
    async () => {
      const visitor = newVisitor();
      const id = await visitorStarts(visitor);
      const r = await agentPost(AMY, `/conversations/${id}/reply`, {
        body: "Hi Vera, Amy here.",
        client_id: "c-1",
      });
      assertEquals(r.status, 200);
      assertEquals(r.body.duplicate, false);
      assertEquals(r.body.message.role, "agent");
      assertEquals(r.body.message.content, "Hi Vera, Amy here.");
      assertMatch(r.body.message.at, /^\d\d:\d\d$/);
      const a = (await agentGet(AMY, `/conversations/${id}`)).body.active;
      assertEquals(a.status, "agent");
      assertEquals(a.handoff_state, "human_connected");
      assertEquals(a.mine, true);
      assertEquals(a.group, "mine");
      assertEquals(a.assigned_to, "Amy Agent");
      assertEquals(a.routed_by, "reply");
      assertEquals(a.events.map((e: { type: string; source: string }) => [e.type, e.source]), [[
        "human_connected",
        "agent",
      ]]);
      // The widget collects it with its next heartbeat.
      const beat = await http(s.url, "POST", `/widget/${KEY}/heartbeat`, {
        headers: freshIp(),
        body: { visitor_id: visitor, conversation_id: id, chat_open: true },
      });
      assertEquals(beat.status, 200);
      assertEquals(beat.body.messages.map((m: { content: string }) => m.content), [
        "Hi Vera, Amy here.",
      ]);
      assertEquals(beat.body.conversation.handoff_state, "human_connected");
      // The AI stays silent while Amy owns it.
      const asked = fake.requests.length;
      const next = await postStream(s.url, KEY, {
        visitor_id: visitor,
        conversation_id: id,
        message: "Thanks Amy!",
      });
      assertEquals(next.status, 200);
      assertEquals(next.events.map((e) => e.event).includes("delta"), false);
      assertEquals(fake.requests.length, asked);
      // For the owner it sits with the team, not with them.
      const owner = await agentGet(OWNER, "/inbox?filter=team");
      assertEquals(owner.body.conversations.find((c: { id: string }) => c.id === id).group, "team");
    },
  );

  await t.step("8 concurrent replies with one client_id store exactly one message", async () => {
    const id = await visitorStarts(newVisitor());
    const replies = await Promise.all(
      Array.from(
        { length: 8 },
        () =>
          agentPost(AMY, `/conversations/${id}/reply`, { body: "Only once", client_id: "retry-1" }),
      ),
    );
    for (const r of replies) assertEquals(r.status, 200);
    const ids = new Set(replies.map((r) => r.body.message.id));
    assertEquals(ids.size, 1);
    assertEquals(replies.filter((r) => r.body.duplicate === false).length, 1);
    assertEquals(replies.filter((r) => r.body.duplicate === true).length, 7);
    const a = (await agentGet(AMY, `/conversations/${id}`)).body.active;
    assertEquals(
      a.messages.filter((m: { content: string }) => m.content === "Only once").length,
      1,
    );
    // Another client_id is another message.
    const other = await agentPost(AMY, `/conversations/${id}/reply`, {
      body: "Only once",
      client_id: "retry-2",
    });
    assertOk(other.body.message.id !== [...ids][0]);
  });

  await t.step(
    "on a conversation the agent owns and has read, retries still store one message",
    async () => {
      // Such replies take the one-statement path, which has no row lock to
      // wait on before it looks for the client_id.
      const id = await visitorStarts(newVisitor());
      const first = await agentPost(AMY, `/conversations/${id}/reply`, { body: "Amy here." });
      assertEquals(first.status, 200);
      const before = (await agentGet(AMY, `/conversations/${id}`)).body.active;
      assertEquals([before.status, before.mine], ["agent", true]);
      const replies = await Promise.all(
        Array.from(
          { length: 8 },
          () =>
            agentPost(AMY, `/conversations/${id}/reply`, {
              body: "Owned once",
              client_id: "own-1",
            }),
        ),
      );
      for (const r of replies) assertEquals(r.status, 200);
      assertEquals(new Set(replies.map((r) => r.body.message.id)).size, 1);
      assertEquals(replies.filter((r) => r.body.duplicate === false).length, 1);
      const after = (await agentGet(AMY, `/conversations/${id}`)).body.active;
      assertEquals(
        after.messages.filter((m: { content: string }) => m.content === "Owned once").length,
        1,
      );
      // A later retry, alone, is a duplicate too; a new client_id is a new message.
      const again = await agentPost(AMY, `/conversations/${id}/reply`, {
        body: "Owned once",
        client_id: "own-1",
      });
      assertEquals([again.body.duplicate, again.body.message.id], [
        true,
        replies[0]!.body.message.id,
      ]);
      const next = await agentPost(AMY, `/conversations/${id}/reply`, {
        body: "Owned twice",
        client_id: "own-2",
      });
      assertEquals(next.body.duplicate, false);
    },
  );

  await t.step("takeover, release, resolve and reopen answer the spec's bodies", async () => {
    const visitor = newVisitor();
    const id = await visitorStarts(visitor);
    const step = (action: string) => agentPost(AMY, `/conversations/${id}/${action}`);
    const take = await step("takeover");
    assertEquals([take.status, take.body], [200, { status: "agent" }]);
    assertEquals((await agentGet(AMY, `/conversations/${id}`)).body.active.mine, true);
    const rel = await step("release");
    assertEquals([rel.status, rel.body], [200, { status: "bot" }]);
    const res = await step("resolve");
    assertEquals([res.status, res.body], [200, { status: "closed", resolution: "resolved" }]);
    const closed = (await agentGet(AMY, `/conversations/${id}`)).body.active;
    assertEquals(closed.group, "resolved");
    assertMatch(closed.resolved_at, /^\d{1,2} [A-Z][a-z]{2} \d\d:\d\d$/);
    assertEquals(closed.events.map((e: { type: string }) => e.type), [
      "human_connected",
      "released",
      "resolved",
    ]);
    // A closed conversation must be reopened before it can be taken over.
    assertEquals((await step("takeover")).status, 409);
    const reo = await step("reopen");
    assertEquals([reo.status, reo.body], [200, { status: "bot" }]);
    // A visitor message reopens a resolved conversation on its own.
    assertEquals((await step("resolve")).status, 200);
    const again = await postStream(s.url, KEY, {
      visitor_id: visitor,
      conversation_id: id,
      message: "One more thing",
    });
    assertEquals(again.status, 200);
    assertEquals(again.events[0]!.data.status, "bot");
    const reopened = (await agentGet(AMY, `/conversations/${id}`)).body.active;
    assertEquals(reopened.status, "bot");
    assertEquals(
      reopened.events.map((e: { type: string; source: string }) => `${e.type}/${e.source}`),
      [
        "human_connected/agent",
        "released/agent",
        "resolved/agent",
        "reopened/agent",
        "resolved/agent",
        "reopened/visitor",
      ],
    );
  });

  await t.step(
    "resolved and unread counts follow a conversation closing and reopening",
    async () => {
      const visitor = newVisitor();
      const id = await visitorStarts(visitor);
      const counts = async () => (await agentGet(AMY, "/inbox")).body.counts;
      const [closedInDb] = await s.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM conversations c JOIN workspaces w ON w.id = c.workspace_id
       WHERE w.slug = 'acme' AND c.status = 'closed'`;
      const before = await counts();
      assertEquals(before.resolved, closedInDb!.n, "the counter matches the table");
      await agentGet(AMY, `/conversations/${id}`); // read
      const read = await counts();
      assertEquals((await agentPost(AMY, `/conversations/${id}/resolve`)).status, 200);
      const closed = await counts();
      assertEquals(closed.resolved, before.resolved + 1);
      assertEquals(closed.all, before.all - 1);
      assertEquals(closed.unread, read.unread);
      // The visitor writes again: reopened, and unread for Amy once more.
      await postStream(s.url, KEY, { visitor_id: visitor, conversation_id: id, message: "Back!" });
      const reopened = await counts();
      assertEquals(reopened.resolved, before.resolved);
      assertEquals(reopened.all, before.all);
      assertEquals(reopened.unread, read.unread + 1);
      const row = (await agentGet(AMY, "/inbox")).body.conversations.find((c: { id: string }) =>
        c.id === id
      );
      assertEquals(row.unread, 1, "only the message after Amy's read counts");
    },
  );

  await t.step("a reply reads the conversation for the agent who wrote it, each time", async () => {
    const visitor = newVisitor();
    const id = await visitorStarts(visitor);
    const unread = async (token: string) =>
      (await agentGet(token, "/inbox")).body.conversations.find((c: { id: string }) => c.id === id)
        .unread as number;
    const reply = async (body: string) =>
      assertEquals((await agentPost(OWNER, `/conversations/${id}/reply`, { body })).status, 200);
    await reply("Let me check.");
    assertEquals(await unread(OWNER), 0, "the replier has read it");
    assertEquals(await unread(AMY), 1, "the others have not");
    await reply("Found it."); // already read: nothing to mark, still read
    assertEquals(await unread(OWNER), 0);
    // The visitor answers: unread for the owner again, until the next reply.
    await postStream(s.url, KEY, { visitor_id: visitor, conversation_id: id, message: "Thanks!" });
    assertEquals(await unread(OWNER), 1);
    await reply("You are welcome.");
    assertEquals(await unread(OWNER), 0);
    assertEquals(await unread(AMY), 2);
  });

  await t.step(
    "sections: waiting, mine, team, ai and resolved are counted over everything",
    async () => {
      const waitingId = await visitorStarts(newVisitor());
      const handoff = await http(s.url, "POST", `/widget/${KEY}/handoff`, {
        headers: freshIp(),
        body: {
          visitor_id: (await agentGet(AMY, `/conversations/${waitingId}`)).body.active.visitor_id,
          conversation_id: waitingId,
        },
      });
      assertEquals(handoff.status, 200);
      const r = await agentGet(AMY, "/inbox?filter=waiting");
      const row = r.body.conversations.find((c: { id: string }) => c.id === waitingId);
      assertEquals(row.group, "waiting");
      assertEquals(row.escalated, true);
      assertEquals(typeof row.waiting_seconds, "number");
      const all = await agentGet(AMY, "/inbox");
      const g = all.body.groups;
      const c = all.body.counts;
      assertEquals(g.waiting + g.mine + g.team + g.ai, c.all);
      assertEquals(c.ai + c.human, c.all);
      assertEquals(g.resolved, c.resolved);
      for (const filter of ["waiting", "mine", "team", "ai", "human", "resolved", "all"]) {
        const f = await agentGet(AMY, `/inbox?filter=${filter}`);
        assertEquals(f.status, 200, filter);
        const expected = filter === "all"
          ? c.all
          : filter === "ai" || filter === "human"
          ? c[filter]
          : g[filter];
        assertEquals(f.body.listed, Math.min(60, expected), filter);
      }
      const bad = await agentGet(AMY, "/inbox?filter=everything");
      assertEquals(bad.status, 422);
      assertOk(bad.body.errors.filter);
    },
  );

  await t.step(
    "one response lists at most 60 rows while the counts cover the whole inbox",
    async () => {
      const before = (await agentGet(AMY, "/inbox")).body.counts.all as number;
      const missing = Math.max(0, 65 - before);
      await Promise.all(
        Array.from(
          { length: missing },
          (_, i) =>
            http(s.url, "POST", `/api/v1/chatbots/${KEY}/messages`, {
              token: T.acme.owner.api,
              body: { visitor_id: `bulk-${i}`, message: "Bulk question" },
            }),
        ),
      );
      const r = await agentGet(AMY, "/inbox");
      assertEquals(r.body.conversations.length, 60);
      assertEquals(r.body.listed, 60);
      assertOk(r.body.counts.all >= 65, `all ${r.body.counts.all}`);
      assertOk(r.body.groups.ai >= 60);
      const times = r.body.conversations.map((c: { id: string }) => c.id);
      assertEquals(new Set(times).size, 60, "no duplicates");
    },
  );

  await t.step("reads need an agent token; a viewer may read", async () => {
    assertEquals((await http(s.url, "GET", "/api/agent/inbox")).status, 401);
    assertEquals((await agentGet(T.acme.owner.api, "/inbox")).status, 403);
    assertEquals((await agentGet(T.acme.owner.portal, "/inbox")).status, 403);
    assertEquals((await agentGet(T.acme.viewer.agent, "/inbox")).status, 200);
    assertEquals((await agentGet(T.acme.viewer.agent, "/tags")).status, 200);
  });

  await t.step("the same inbox is served at /trpc for first-party clients", async () => {
    const r = await fetch(
      `${s.url}/trpc/agent.inbox?input=${encodeURIComponent('{"filter":"mine"}')}`,
      {
        headers: { authorization: `Bearer ${AMY}` },
      },
    );
    assertEquals(r.status, 200);
    const body = await r.json();
    assertEquals(body.result.data.list_limit, 60);
    assertOk(body.result.data.conversations.every((c: { mine: boolean }) => c.mine));
  });

  void amyId;
});

Deno.test("stop the inbox test server", serverTestOptions, async () => {
  await s.stop();
  await fake.close();
});
