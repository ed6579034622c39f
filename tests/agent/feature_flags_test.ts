/**
 * The bot's feature flags (portal branding) do what docs/widget-api.md says,
 * both ways: copilot
 * (suggest and summary refused with 403 when off), copilot_use_profile (the
 * suggestion's prompt holds what is known of the visitor, or not),
 * auto_actions (on resolve: the summary and its sure tags with source `ai`),
 * behavior_tracking (journey, page views, entry page and referrer kept, or
 * only the current page) and live_visitors (listed and invitable, or never).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const fake = startFakeAi({ reply: "Parcels ship in 2 days." });
const s = await startTestServer({
  seed: standardSeed(),
  env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
});
const agent = T.acme.agent.agent;

/**
 * Switch flags of acme-helper. No HTTP surface edits these flags yet (the
 * portal's update takes the four spec fields; the dashboard will), so the
 * stored branding is patched as the dashboard's save would.
 */
async function flags(branding: Record<string, boolean>) {
  await s.deps.sql`
    UPDATE chatbots SET branding = branding || ${s.deps.sql.json(branding)}
     WHERE public_key = 'acme-helper'`;
}

async function conversation(message: string, meta?: Record<string, unknown>) {
  const visitor = `v_flags_${crypto.randomUUID().slice(0, 8)}`;
  const r = await postStream(s.url, "acme-helper", { visitor_id: visitor, message, meta });
  assertEquals(r.status, 200);
  return { visitor, id: r.events[0]!.data.conversation_id as string };
}

const post = (path: string, body: unknown = {}) =>
  http(s.url, "POST", path, { token: agent, body });
const active = async (id: string) =>
  (await http(s.url, "GET", `/api/agent/conversations/${id}`, { token: agent })).body.active;
const prompt = () => JSON.stringify(fake.requests.at(-1)?.messages ?? []);

async function eventually<T>(read: () => Promise<T>, ok: (v: T) => boolean, what: string) {
  const end = Date.now() + 10_000;
  let v = await read();
  while (!ok(v) && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 100));
    v = await read();
  }
  assertOk(ok(v), `${what}: ${JSON.stringify(v)}`);
  return v;
}

Deno.test("feature flags", serverTestOptions, async (t) => {
  try {
    await t.step(
      "copilot off: suggest and summary are 403 for the bot's conversations",
      async () => {
        const c = await conversation("Where is my parcel?");
        await flags({ copilot: false });
        const suggest = await post(`/api/agent/conversations/${c.id}/suggest`);
        assertEquals(suggest.status, 403);
        assertEquals(
          suggest.body.message,
          "The AI copilot is turned off for this conversation's bot (branding copilot).",
        );
        assertEquals((await post(`/api/agent/conversations/${c.id}/summary`)).status, 403);
        await flags({ copilot: true });
        const on = await post(`/api/agent/conversations/${c.id}/suggest`);
        assertEquals(on.status, 200);
        assertEquals(on.body.suggestion, "Parcels ship in 2 days.");
      },
    );

    await t.step(
      "copilot_use_profile: the visitor's profile reaches the prompt, or not",
      async () => {
        const c = await conversation("Where is my order?", {
          visitor: { name: "Rita Profile", email: "rita@example.com", phone: "+33 1 23" },
        });
        await flags({ copilot_use_profile: true });
        assertEquals((await post(`/api/agent/conversations/${c.id}/suggest`)).status, 200);
        const withProfile = prompt();
        assertOk(withProfile.includes("VISITOR PROFILE"), withProfile);
        assertOk(withProfile.includes("Rita Profile") && withProfile.includes("rita@example.com"));
        await flags({ copilot_use_profile: false });
        assertEquals((await post(`/api/agent/conversations/${c.id}/suggest`)).status, 200);
        const without = prompt();
        assertOk(!without.includes("VISITOR PROFILE") && !without.includes("rita@example.com"));
      },
    );

    await t.step("auto_actions on: resolving writes the summary and sure AI tags", async () => {
      fake.structured = () => ({
        summary: "The visitor was charged twice.",
        intent: "refund request",
        tag_suggestions: [
          { name: "billing", confidence: 0.93, reason: "A double charge." },
          { name: "urgent", confidence: 0.4, reason: "Maybe." },
        ],
      });
      try {
        await flags({ auto_actions: true });
        const c = await conversation("I was charged twice!");
        assertEquals((await post(`/api/agent/conversations/${c.id}/resolve`)).status, 200);
        const a = await eventually(
          () => active(c.id),
          (a) => a.summary !== null && a.tags.length > 0,
          "summary and tags",
        );
        assertEquals(a.summary, "The visitor was charged twice.");
        assertEquals(
          a.tags.map((x: { name: string; source: string }) => [x.name, x.source]),
          [["billing", "ai"]],
        );
      } finally {
        fake.structured = null;
      }
    });

    await t.step("auto_actions off: nothing happens by itself", async () => {
      await flags({ auto_actions: false });
      const c = await conversation("I was charged twice, again!");
      const before = fake.requests.length;
      assertEquals((await post(`/api/agent/conversations/${c.id}/resolve`)).status, 200);
      await new Promise((r) => setTimeout(r, 500));
      const a = await active(c.id);
      assertEquals([a.summary, a.tags], [null, []]);
      assertEquals(fake.requests.length, before, "no provider call");
    });

    const beat = (visitor: string, page: string) =>
      http(s.url, "POST", "/widget/acme-helper/heartbeat", {
        headers: freshIp(),
        body: {
          visitor_id: visitor,
          chat_open: false,
          page_url: page,
          page_title: "A page",
          referrer: "https://search.example/?q=acme",
        },
      });

    await t.step("behavior_tracking off: the current page only, no history", async () => {
      await flags({ behavior_tracking: false });
      const c = await conversation("Just browsing");
      await beat(c.visitor, "https://acme.test/");
      await beat(c.visitor, "https://acme.test/pricing");
      const a = await active(c.id);
      assertEquals(a.page, "https://acme.test/pricing");
      assertEquals([a.journey, a.page_views, a.entry_page, a.referrer], [[], 0, null, null]);
    });

    await t.step("behavior_tracking on: page views, journey, entry page, referrer", async () => {
      await flags({ behavior_tracking: true });
      const c = await conversation("Just browsing too");
      await beat(c.visitor, "https://acme.test/");
      await beat(c.visitor, "https://acme.test/pricing");
      const a = await active(c.id);
      assertEquals(a.journey.map((j: { url: string }) => j.url), [
        "https://acme.test/",
        "https://acme.test/pricing",
      ]);
      assertEquals([a.page_views, a.entry_page, a.referrer], [
        2,
        "https://acme.test/",
        "https://search.example/?q=acme",
      ]);
    });

    await t.step("live_visitors off: never listed nor invitable; enabled false", async () => {
      await flags({ live_visitors: false });
      const visitor = `v_live_${crypto.randomUUID().slice(0, 8)}`;
      await beat(visitor, "https://acme.test/");
      const list = await http(s.url, "GET", "/api/agent/visitors", { token: agent });
      assertEquals(list.body.enabled, false);
      assertOk(!list.body.visitors.some((v: { id: string }) => v.id === visitor));
      const invite = await post(`/api/agent/visitors/${visitor}/invite`, { message: "Hi" });
      assertEquals(invite.status, 404);
      await flags({ live_visitors: true });
      const on = await http(s.url, "GET", "/api/agent/visitors", { token: agent });
      assertEquals(on.body.enabled, true);
      assertOk(on.body.visitors.some((v: { id: string }) => v.id === visitor));
      assertEquals(
        (await post(`/api/agent/visitors/${visitor}/invite`, { message: "Hi" })).status,
        201,
      );
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
