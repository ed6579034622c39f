/**
 * The agent's AI assistant: suggest (through the visitors' retrieval, prompt
 * and provider code; null when there is nothing to answer or no key; 502 on
 * provider failure), outcomes and the per-bot acceptance rate, the summary
 * with intent and catalogue tags from one structured-output call, revenue,
 * and what the portal analytics adds. Prompts are checked at the fake AI.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { type ChatRequestRecord, startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const fake = startFakeAi({ reply: "Express shipping takes 2 days and costs 15 euros." });
const s = await startTestServer({
  seed: standardSeed(),
  env: { AI_BASE_URL: fake.baseUrl, ...WIDGET_ENV },
});
const agent = T.acme.agent.agent;
const post = (path: string, body: unknown = {}, token: string = agent) =>
  http(s.url, "POST", path, { token, body });

/** A widget conversation with one visitor message (and the AI's answer). */
async function newConversation(message: string, visitor = crypto.randomUUID()) {
  const r = await postStream(s.url, "acme-helper", { visitor_id: visitor, message }, freshIp());
  assertEquals(r.status, 200);
  return { id: r.events[0]!.data.conversation_id as string, visitor };
}

async function heartbeat(visitor: string, chatOpen = false) {
  const r = await http(s.url, "POST", "/widget/acme-helper/heartbeat", {
    body: { visitor_id: visitor, chat_open: chatOpen, page_url: "https://acme.test/" },
    headers: freshIp(),
  });
  assertEquals(r.status, 200);
}

const allText = (req: ChatRequestRecord) => req.messages.map((m) => m.content).join("\n");

Deno.test("agent AI suggestions", serverTestOptions, async (t) => {
  await t.step("a suggestion answers the visitor from the bot's knowledge", async () => {
    const c = await newConversation("How long does express shipping take?");
    fake.requests.length = 0;
    fake.reply = "Express shipping takes 2 days (15 euros).";
    const r = await post(`/api/agent/conversations/${c.id}/suggest`);
    assertEquals(r.status, 200);
    assertEquals(Object.keys(r.body).sort(), ["id", "suggestion"]);
    assertEquals(typeof r.body.id, "number");
    assertEquals(r.body.suggestion, "Express shipping takes 2 days (15 euros).");
    assertEquals(fake.requests.length, 1);
    const prompt = allText(fake.requests[0]!);
    // The conversation, the relevant knowledge, the agent framing; nothing of Globex.
    assertOk(prompt.includes("How long does express shipping take?"));
    assertOk(prompt.includes("Express shipping takes 2 days and costs 15 euros"));
    assertOk(prompt.includes("human support agent"));
    assertOk(!prompt.includes("HAMMOCK"));
    assertEquals(fake.requests[0]!.responseFormat, null);
  });

  await t.step("a draft is improved, not replaced: it reaches the prompt", async () => {
    const c = await newConversation("Do you accept returns?");
    fake.requests.length = 0;
    const r = await post(`/api/agent/conversations/${c.id}/suggest`, {
      draft: "yes returns ok within a month",
    });
    assertEquals(r.status, 200);
    const system = fake.requests[0]!.messages[0]!.content;
    assertOk(system.includes("AGENT DRAFT\nyes returns ok within a month"));
    assertOk(system.includes("Improve its wording"));
    assertOk(system.includes("Returns are accepted within 30 days"));
  });

  await t.step("another workspace's knowledge never reaches the prompt", async () => {
    const c = await newConversation("What is the Globex launch code?");
    fake.requests.length = 0;
    const r = await post(`/api/agent/conversations/${c.id}/suggest`);
    assertEquals(r.status, 200);
    assertOk(!allText(fake.requests[0]!).includes("HAMMOCK-42"));
  });

  await t.step("nothing to answer after an agent's reply: null, no provider call", async () => {
    const c = await newConversation("Hello there");
    await heartbeat(c.visitor);
    const inv = await post(`/api/agent/visitors/${c.visitor}/invite`, { message: "Hi, Amy here" });
    assertEquals(inv.status, 200);
    fake.requests.length = 0;
    const r = await post(`/api/agent/conversations/${c.id}/suggest`);
    assertEquals(r.status, 200);
    assertEquals(r.body.suggestion, null);
    assertEquals(typeof r.body.id, "number");
    assertEquals(fake.requests.length, 0);
  });

  await t.step("no provider key: null suggestion, summary 422, no call", async () => {
    // A server without AI_BASE_URL or AI_API_KEY: only stored keys count.
    const bare = await startTestServer({ seed: standardSeed(), env: WIDGET_ENV });
    try {
      const visitor = crypto.randomUUID();
      const turn = await postStream(bare.url, "globex-bot", {
        visitor_id: visitor,
        message: "Where is my parcel?",
      }, freshIp());
      const id = turn.events[0]!.data.conversation_id;
      const r = await http(bare.url, "POST", `/api/agent/conversations/${id}/suggest`, {
        token: T.globex.owner.agent,
        body: {},
      });
      assertEquals(r.status, 200);
      assertEquals(r.body.suggestion, null);
      assertEquals(typeof r.body.id, "number");
      const sum = await http(bare.url, "POST", `/api/agent/conversations/${id}/summary`, {
        token: T.globex.owner.agent,
        body: {},
      });
      assertEquals(sum.status, 422);
      assertOk(sum.body.errors.summary[0].includes("no API key"));
    } finally {
      await bare.stop();
    }
    // With AI_BASE_URL set, a workspace without a stored key is answered, so it gets suggestions.
    const g = await postStream(s.url, "globex-bot", {
      visitor_id: crypto.randomUUID(),
      message: "Hello?",
    }, freshIp());
    const keyless = await post(
      `/api/agent/conversations/${g.events[0]!.data.conversation_id}/suggest`,
      {},
      T.globex.owner.agent,
    );
    assertEquals(keyless.status, 200);
    assertEquals(typeof keyless.body.suggestion, "string");
  });

  await t.step("a failing provider is a 502 and stores nothing", async () => {
    const c = await newConversation("Can I change my address?");
    const [before] = await s.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM ai_assist_calls`;
    fake.mode = "unauthorized";
    try {
      const r = await post(`/api/agent/conversations/${c.id}/suggest`);
      assertEquals(r.status, 502);
      assertOk(r.body.message.includes("provider"));
    } finally {
      fake.mode = "ok";
    }
    const [after] = await s.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM ai_assist_calls`;
    assertEquals(after!.n, before!.n);
  });

  await t.step("foreign and unknown conversations are 404; bad input 422", async () => {
    const c = await newConversation("Hi");
    assertEquals(
      (await post(`/api/agent/conversations/${c.id}/suggest`, {}, T.globex.owner.agent))
        .status,
      404,
    );
    assertEquals(
      (await post(`/api/agent/conversations/${crypto.randomUUID()}/suggest`)).status,
      404,
    );
    assertEquals((await post(`/api/agent/conversations/not-a-uuid/suggest`)).status, 404);
    const long = await post(`/api/agent/conversations/${c.id}/suggest`, {
      draft: "x".repeat(4001),
    });
    assertEquals(long.status, 422);
    assertOk(long.body.errors.draft);
  });

  await t.step("the viewer seat and other abilities are refused", async () => {
    const c = await newConversation("Hi");
    const path = `/api/agent/conversations/${c.id}/suggest`;
    assertEquals((await post(path, {}, T.acme.viewer.agent)).status, 403);
    assertEquals((await post(path, {}, T.acme.agent.api)).status, 403);
    assertEquals((await http(s.url, "POST", path, { body: {} })).status, 401);
  });

  await t.step("outcomes: recorded for the workspace's suggestions only", async () => {
    const c = await newConversation("How long does express shipping take?");
    const sug = await post(`/api/agent/conversations/${c.id}/suggest`);
    const r = await post(`/api/agent/suggestion/${sug.body.id}/outcome`, { outcome: "inserted" });
    assertEquals(r.status, 200);
    assertEquals(r.body, { id: sug.body.id, outcome: "inserted" });
    const foreign = await post(
      `/api/agent/suggestion/${sug.body.id}/outcome`,
      { outcome: "dismissed" },
      T.globex.owner.agent,
    );
    assertEquals(foreign.status, 404);
    assertEquals(
      (await post(`/api/agent/suggestion/999999999/outcome`, { outcome: "edited" }))
        .status,
      404,
    );
    const bad = await post(`/api/agent/suggestion/${sug.body.id}/outcome`, { outcome: "loved" });
    assertEquals(bad.status, 422);
    assertOk(bad.body.errors.outcome);
    assertEquals(
      (await post(`/api/agent/suggestion/abc/outcome`, { outcome: "edited" })).status,
      422,
    );
  });

  await t.step("the outcome route allows 60 reports a minute per agent", async () => {
    const c = await newConversation("How long does express shipping take?");
    const sug = await post(`/api/agent/conversations/${c.id}/suggest`, {}, T.acme.owner.agent);
    let last;
    for (let i = 0; i < 61; i++) {
      last = await post(
        `/api/agent/suggestion/${sug.body.id}/outcome`,
        { outcome: i % 2 ? "edited" : "generated" },
        T.acme.owner.agent,
      );
      if (i < 60) assertEquals(last.status, 200, `call ${i + 1}`);
    }
    assertEquals(last!.status, 429);
    assertOk(Number(last!.headers.get("retry-after")) > 0);
    assertEquals(last!.headers.get("x-ratelimit-limit"), "60");
    // The last accepted report stands: "edited" (call 60).
    const [row] = await s.deps.sql<{ outcome: string }[]>`
      SELECT outcome FROM ai_assist_calls WHERE id = ${sug.body.id}`;
    assertEquals(row!.outcome, "edited");
  });

  await t.step("suggestions are counted in the portal analytics", async () => {
    const a = (await http(s.url, "GET", "/api/portal/analytics", { token: T.acme.owner.portal }))
      .body.data;
    const bot = a.suggestions.find((b: { chatbot: string }) => b.chatbot === "acme-helper");
    assertOk(bot, `acme-helper has suggestions: ${JSON.stringify(a)}`);
    assertOk(bot.suggested >= 5, `suggested ${bot.suggested}`);
    assertEquals(bot.inserted, 1);
    assertEquals(bot.edited, 1);
    assertEquals(bot.acceptance_rate, Math.round((2 / bot.suggested) * 1000) / 1000);
    // Suggestion tokens and cost are in the month's totals.
    const [sums] = await s.deps.sql<{ tokens: number; cost: string }[]>`
      SELECT (SELECT sum(tokens_in + tokens_out) FROM messages m JOIN workspaces w
                ON w.id = m.workspace_id WHERE w.slug = 'acme')::int
           + (SELECT sum(tokens_in + tokens_out) FROM ai_assist_calls a JOIN workspaces w
                ON w.id = a.workspace_id WHERE w.slug = 'acme')::int AS tokens`;
    assertEquals(a.tokens, sums!.tokens);
    const g = await http(s.url, "GET", "/api/portal/analytics", { token: T.globex.owner.portal });
    assertEquals(g.status, 403); // Globex has no portal; its analytics stay its own anyway
  });

  await t.step("the route allows 30 suggestions a minute per agent", async () => {
    const c = await newConversation("Hi");
    const token = T.acme.administrator.agent;
    let last;
    for (let i = 0; i < 31; i++) {
      last = await post(`/api/agent/conversations/${c.id}/suggest`, {}, token);
      if (i < 30) assertEquals(last.status, 200, `call ${i + 1}`);
    }
    assertEquals(last!.status, 429);
    assertOk(Number(last!.headers.get("retry-after")) > 0);
    assertEquals(last!.headers.get("x-ratelimit-limit"), "30");
  });
});

Deno.test("agent conversation summary", serverTestOptions, async (t) => {
  await t.step("summary, intent and catalogue tags from one structured call", async () => {
    const c = await newConversation("I was charged twice for my order, please refund one!");
    fake.requests.length = 0;
    fake.structured = () => ({
      summary: "The visitor was charged twice and wants a refund.",
      intent: "refund request",
      tag_suggestions: [
        { name: "billing", confidence: 0.92, reason: "A double charge." },
        { name: "globex-tag", confidence: 0.99, reason: "Not in this catalogue." },
        { name: "urgent", confidence: 1.7, reason: "The visitor insists." },
      ],
    });
    try {
      const r = await post(`/api/agent/conversations/${c.id}/summary`);
      assertEquals(r.status, 200);
      assertEquals(r.body.summary, "The visitor was charged twice and wants a refund.");
      assertOk(!Number.isNaN(Date.parse(r.body.summary_at)));
      assertEquals(r.body.intent, "refund request");
      const tags = r.body.tag_suggestions;
      assertEquals(tags.map((x: { name: string }) => x.name), ["urgent", "billing"]);
      assertEquals(tags[0].confidence, 1);
      assertEquals(typeof tags[0].id, "number");
      assertEquals(tags[1].reason, "A double charge.");
    } finally {
      fake.structured = null;
    }
    assertEquals(fake.requests.length, 1);
    const req = fake.requests[0]!;
    assertEquals(req.responseFormat?.type, "json_schema");
    const schema = req.responseFormat!.json_schema!.schema;
    assertEquals(
      schema.properties!.tag_suggestions!.items!.properties!.name!.enum,
      ["billing", "urgent"],
    );
    const prompt = allText(req);
    assertOk(prompt.includes("I was charged twice for my order"));
    assertOk(!prompt.includes("globex-tag") && !prompt.includes("HAMMOCK"));
    // Stored on the conversation and counted.
    const [row] = await s.deps.sql<{ summary: string; intent: string; n: number }[]>`
      SELECT summary, intent, jsonb_array_length(tag_suggestions)::int AS n
        FROM conversations WHERE public_id = ${c.id}`;
    assertEquals(row, {
      summary: "The visitor was charged twice and wants a refund.",
      intent: "refund request",
      n: 2,
    });
    // The inbox's active conversation shows them.
    const view = await http(s.url, "GET", `/api/agent/conversations/${c.id}`, { token: agent });
    assertEquals(view.body.active.summary, "The visitor was charged twice and wants a refund.");
    assertEquals(view.body.active.intent, "refund request");
    assertOk(typeof view.body.active.summary_at === "string");
    assertEquals(
      view.body.active.tag_suggestions.map((x: { name: string }) => x.name),
      ["urgent", "billing"],
    );
    const [call] = await s.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM ai_assist_calls a JOIN conversations c
          ON c.id = a.conversation_id
       WHERE c.public_id = ${c.id} AND a.kind = 'summary' AND a.tokens_in > 0`;
    assertEquals(call!.n, 1);
  });

  await t.step("the fake's default structured answer fits the schema", async () => {
    const c = await newConversation("Where is my parcel?");
    const r = await post(`/api/agent/conversations/${c.id}/summary`);
    assertEquals(r.status, 200);
    assertEquals(r.body.summary, "fake summary");
    assertEquals(r.body.tag_suggestions.length, 1);
  });

  await t.step("nothing to summarise, or an unusable answer: 422", async () => {
    const visitor = crypto.randomUUID();
    await heartbeat(visitor);
    const inv = await post(`/api/agent/visitors/${visitor}/invite`, { message: "Hello!" });
    assertEquals(inv.status, 201);
    const empty = await post(`/api/agent/conversations/${inv.body.conversation_id}/summary`);
    assertEquals(empty.status, 422);
    assertOk(empty.body.errors.summary);
    const c = await newConversation("Hi");
    fake.structured = () => ({ nonsense: true });
    try {
      const r = await post(`/api/agent/conversations/${c.id}/summary`);
      assertEquals(r.status, 422);
    } finally {
      fake.structured = null;
    }
    fake.mode = "server_error";
    try {
      assertEquals((await post(`/api/agent/conversations/${c.id}/summary`)).status, 422);
    } finally {
      fake.mode = "ok";
    }
  });

  await t.step("404 for foreign conversations; 10 a minute per agent", async () => {
    const c = await newConversation("Hi");
    assertEquals(
      (await post(`/api/agent/conversations/${c.id}/summary`, {}, T.globex.owner.agent))
        .status,
      404,
    );
    const viewer = await post(`/api/agent/conversations/${c.id}/summary`, {}, T.acme.viewer.agent);
    assertEquals(viewer.status, 403);
    const token = T.acme.owner.agent;
    let last;
    for (let i = 0; i < 11; i++) {
      last = await post(`/api/agent/conversations/${c.id}/summary`, {}, token);
      if (i < 10) assertEquals(last.status, 200, `call ${i + 1}`);
    }
    assertEquals(last!.status, 429);
    assertOk(Number(last!.headers.get("retry-after")) > 0);
  });
});

Deno.test("agent revenue", serverTestOptions, async (t) => {
  await t.step("none recorded: 0 in cents and amount, currency and label null", async () => {
    const c = await newConversation("Just looking");
    const view = await http(s.url, "GET", `/api/agent/conversations/${c.id}`, { token: agent });
    const a = view.body.active;
    assertEquals([a.revenue_cents, a.revenue_amount, a.revenue_currency, a.revenue_label], [
      0,
      0,
      null,
      null,
    ]);
  });

  await t.step("recorded in cents, replaced on repeat, summed in analytics", async () => {
    const before = (await http(s.url, "GET", "/api/portal/analytics", {
      token: T.acme.owner.portal,
    })).body.data.revenue;
    assertEquals(before, []);
    const c = await newConversation("I want to buy the big one");
    const first = await post(`/api/agent/conversations/${c.id}/revenue`, {
      amount: 19.99,
      currency: "eur",
      label: "Upsell",
    });
    assertEquals(first.status, 200);
    assertEquals(first.body, {
      revenue_cents: 1999,
      revenue_amount: 19.99,
      revenue_currency: "EUR",
      revenue_label: "Upsell",
    });
    const again = await post(`/api/agent/conversations/${c.id}/revenue`, {
      amount: 120.5,
      currency: "EUR",
    });
    assertEquals(again.body, {
      revenue_cents: 12050,
      revenue_amount: 120.5,
      revenue_currency: "EUR",
      revenue_label: null,
    });
    const view = await http(s.url, "GET", `/api/agent/conversations/${c.id}`, { token: agent });
    assertEquals(view.body.active.revenue_cents, 12050);
    assertEquals(view.body.active.revenue_amount, 120.5);
    assertEquals(view.body.active.revenue_currency, "EUR");
    assertEquals(view.body.active.revenue_label, null);
    const yen = await newConversation("Yen please");
    const jp = await post(`/api/agent/conversations/${yen.id}/revenue`, {
      amount: 1500,
      currency: "JPY",
    });
    assertEquals(jp.body.revenue_cents, 1500);
    const a = (await http(s.url, "GET", "/api/portal/analytics", { token: T.acme.owner.portal }))
      .body.data;
    assertEquals(a.revenue, [
      { currency: "EUR", amount: 120.5, cents: 12050, conversations: 1 },
      { currency: "JPY", amount: 1500, cents: 1500, conversations: 1 },
    ]);
  });

  await t.step("bad amounts and currencies are 422; foreign conversations 404", async () => {
    const c = await newConversation("Hi");
    const path = `/api/agent/conversations/${c.id}/revenue`;
    const cases: [unknown, string][] = [
      [{ amount: -1, currency: "EUR" }, "amount"],
      [{ amount: "12", currency: "EUR" }, "amount"],
      [{ amount: 1.999, currency: "EUR" }, "amount"],
      [{ amount: 1.5, currency: "JPY" }, "amount"],
      [{ amount: 5, currency: "XYZ" }, "currency"],
      [{ amount: 5, currency: "EURO" }, "currency"],
      [{ currency: "EUR" }, "amount"],
      [{ amount: 5, currency: "EUR", label: "l".repeat(121) }, "label"],
    ];
    for (const [body, field] of cases) {
      const r = await post(path, body);
      assertEquals(r.status, 422, JSON.stringify(body));
      assertOk(r.body.errors[field], `${field} named for ${JSON.stringify(body)}`);
    }
    assertEquals(
      (await post(path, { amount: 5, currency: "EUR" }, T.globex.owner.agent)).status,
      404,
    );
    assertEquals(
      (await post(path, { amount: 5, currency: "EUR" }, T.acme.viewer.agent)).status,
      403,
    );
  });
});

Deno.test("stop the assist test server", serverTestOptions, async () => {
  await s.stop();
  await fake.close();
});
