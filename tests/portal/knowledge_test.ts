/**
 * Portal knowledge: create answers at once with `pending`, the background
 * pipeline makes the source `ready` with its true chunk count, per-type
 * validation, top-level listing, deletion of everything indexed, and a
 * failed attempt retried with backoff.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { page, startLocalSite } from "../helpers/local_site.ts";
import { pollUntil } from "./poll.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";

const ai = startFakeAi();
const s = await startTestServer({ seed: standardSeed(), env: { AI_BASE_URL: ai.baseUrl } });
const owner: string = T.acme.owner.portal;
const base = "/api/portal/chatbots/acme-helper/knowledge";
const create = (body: unknown, token = owner) => http(s.url, "POST", base, { token, body });
const list = async () =>
  (await http(s.url, "GET", base, { token: owner })).body.data as {
    id: number;
    status: string;
    chunk_count: number;
    title: string;
    type: string;
    error: string | null;
  }[];
const waitStatus = (id: number, status: string, timeoutMs = 20_000) =>
  pollUntil(
    async () => {
      const found = (await list()).find((x) => x.id === id);
      return found && found.status === status ? found : null;
    },
    `source ${id} to be ${status}`,
    timeoutMs,
  );
const chunksOf = async (id: number) => {
  const [row] = await s.deps.sql<{ n: number }[]>`
    SELECT count(*)::int AS n FROM knowledge_chunks c JOIN knowledge_sources k ON k.id = c.source_id
     WHERE k.id = ${id} OR k.parent_id = ${id}`;
  return row!.n;
};

Deno.test("portal knowledge create and indexing", serverTestOptions, async (t) => {
  let textId = 0;
  await t.step(
    "a text source answers 201 at once with pending and 0 chunks, then becomes ready",
    async () => {
      const content = "# Warranty\n" + "Every device carries a two year warranty. ".repeat(80) +
        "\n\n# Repairs\n" + "Repairs are free within the warranty period. ".repeat(80);
      const r = await create({ type: "text", title: "Warranty", content });
      assertEquals(r.status, 201);
      assertEquals(r.body.data.status, "pending");
      assertEquals(r.body.data.chunk_count, 0);
      assertEquals(r.body.data.type, "text");
      assertEquals(r.body.data.source_url, null);
      assertOk(!Number.isNaN(Date.parse(r.body.data.created_at)));
      textId = r.body.data.id;
      const ready = await waitStatus(textId, "ready");
      assertOk(ready.chunk_count > 1);
      assertEquals(await chunksOf(textId), ready.chunk_count);
    },
  );

  await t.step("a Q&A source defaults its title to the question", async () => {
    const r = await create({ type: "qa", question: "Do you ship to Mars?", answer: "Not yet." });
    assertEquals(r.status, 201);
    assertEquals(r.body.data.title, "Do you ship to Mars?");
    const ready = await waitStatus(r.body.data.id, "ready");
    assertEquals(ready.chunk_count, 1);
  });

  await t.step("a text source without a title is named from its first line", async () => {
    const r = await create({ type: "text", content: "\n## Holiday hours\nClosed on Sundays." });
    assertEquals(r.body.data.title, "Holiday hours");
  });

  await t.step("content of 1,000,000 characters is accepted and indexed", async () => {
    const para = "Large manuals describe every setting of the device in detail. ";
    const content = para.repeat(Math.ceil(1_000_000 / para.length)).slice(0, 1_000_000);
    const r = await create({ type: "text", title: "Big manual", content });
    assertEquals(r.status, 201);
    const ready = await waitStatus(r.body.data.id, "ready", 60_000);
    assertOk(ready.chunk_count > 500);
  });

  await t.step("the list holds top-level sources only, newest first", async () => {
    const items = await list();
    assertOk(items.every((x) => x.type !== "page"));
    const ids = items.map((x) => x.id);
    assertEquals(ids, [...ids].sort((a, b) => b - a));
    assertEquals(Object.keys(items[0]!).sort(), [
      "chunk_count",
      "created_at",
      "error",
      "id",
      "last_sync",
      "next_sync_at",
      "pages_found",
      "pages_indexed",
      "source_url",
      "status",
      "sync_schedule",
      "title",
      "type",
    ]);
  });

  await t.step("deleting a source removes it and every chunk indexed from it", async () => {
    assertOk((await chunksOf(textId)) > 0);
    const r = await http(s.url, "DELETE", `${base}/${textId}`, { token: owner });
    assertEquals(r.status, 200);
    assertEquals(typeof r.body.message, "string");
    assertEquals(await chunksOf(textId), 0);
    assertOk(!(await list()).some((x) => x.id === textId));
    const again = await http(s.url, "DELETE", `${base}/${textId}`, { token: owner });
    assertEquals(again.status, 404);
  });
});

Deno.test("portal knowledge validation and access", serverTestOptions, async (t) => {
  const cases: [string, Record<string, unknown>, string][] = [
    ["type is required", { content: "x" }, "type"],
    ["type must be known", { type: "pdf", content: "x" }, "type"],
    ["text needs content", { type: "text", title: "t" }, "content"],
    ["text content is not blank", { type: "text", content: "   " }, "content"],
    ["qa needs a question", { type: "qa", answer: "a" }, "question"],
    ["qa needs an answer", { type: "qa", question: "q" }, "answer"],
    ["url needs source_url", { type: "url" }, "source_url"],
    ["source_url must be a URL", { type: "url", source_url: "not a url" }, "source_url"],
    ["source_url must be http(s)", { type: "url", source_url: "ftp://example.com/" }, "source_url"],
    [
      "source_url is at most 2048",
      { type: "url", source_url: "https://example.com/" + "a".repeat(2040) },
      "source_url",
    ],
    ["content is at most 1,000,000", { type: "text", content: "x".repeat(1_000_001) }, "content"],
    [
      "question is at most 2000",
      { type: "qa", question: "q".repeat(2001), answer: "a" },
      "question",
    ],
    [
      "answer is at most 50,000",
      { type: "qa", question: "q", answer: "a".repeat(50_001) },
      "answer",
    ],
    ["title is at most 200", { type: "text", title: "t".repeat(201), content: "x" }, "title"],
  ];
  for (const [rule, body, field] of cases) {
    await t.step(`422: ${rule}`, async () => {
      const r = await create(body);
      assertEquals(r.status, 422, r.text.slice(0, 200));
      assertOk(r.body.errors[field], `errors.${field} in ${r.text.slice(0, 200)}`);
      assertEquals(typeof r.body.message, "string");
    });
  }

  await t.step("create and delete need manage-content", async () => {
    const r = await create({ type: "text", content: "x" }, T.acme.agent.portal);
    assertEquals(r.status, 403);
    const v = await create({ type: "text", content: "x" }, T.acme.viewer.portal);
    assertEquals(v.status, 403);
    const d = await http(s.url, "DELETE", `${base}/1`, { token: T.acme.agent.portal });
    assertEquals(d.status, 403);
  });

  await t.step("another workspace's bot and sources are 404", async () => {
    const g = await http(s.url, "GET", "/api/portal/chatbots/globex-bot/knowledge", {
      token: owner,
    });
    assertEquals(g.status, 404);
    const [globexSource] = await s.deps.sql<{ id: number }[]>`
      SELECT k.id FROM knowledge_sources k JOIN chatbots b ON b.id = k.chatbot_id
       WHERE b.public_key = 'globex-bot' LIMIT 1`;
    const d = await http(s.url, "DELETE", `${base}/${globexSource!.id}`, { token: owner });
    assertEquals(d.status, 404);
    const other = await http(
      s.url,
      "DELETE",
      `/api/portal/chatbots/globex-bot/knowledge/${globexSource!.id}`,
      { token: owner },
    );
    assertEquals(other.status, 404);
    const [still] = await s.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM knowledge_sources WHERE id = ${globexSource!.id}`;
    assertEquals(still!.n, 1);
    const bad = await http(s.url, "DELETE", `${base}/abc`, { token: owner });
    assertEquals(bad.status, 422);
    // One correct sentence per refusal (was "must be at least 0" for 0, and a duplicate).
    const zero = await http(s.url, "DELETE", `${base}/0`, { token: owner });
    assertEquals(zero.body.errors, { source: ["The source field must be at least 1."] });
    const huge = await http(s.url, "DELETE", `${base}/99999999999999999999`, { token: owner });
    assertEquals(huge.status, 422);
    assertEquals(huge.body.errors.source.length, 1);
  });
});

Deno.test("a failed indexing attempt is retried with backoff", serverTestOptions, async (t) => {
  let robotsCalls = 0;
  // robots.txt fails once with 503 (retryable), then works.
  const realRobots = { contentType: "text/plain", body: "User-agent: *\nAllow: /\n" };
  const site2 = startLocalSite((_base) => ({
    "/": page("Retry home", ["Retried pages arrive after the site recovers."]),
    get "/robots.txt"() {
      robotsCalls++;
      return robotsCalls === 1 ? { status: 503, body: "busy" } : realRobots;
    },
  }));
  try {
    await t.step(
      "the source goes back to pending with the reason, then becomes ready",
      async () => {
        const r = await create({ type: "url", source_url: `${site2.url}/` });
        assertEquals(r.status, 201);
        const id = r.body.data.id as number;
        const pending = await pollUntil(async () => {
          const x = (await list()).find((v) => v.id === id);
          return x && x.status === "pending" && x.error ? x : null;
        }, "the first attempt to fail");
        assertOk(/503/.test(pending.error!), pending.error!);
        const ready = await waitStatus(id, "ready", 30_000);
        assertOk(ready.chunk_count >= 1);
        assertEquals(ready.error, null);
        assertEquals(robotsCalls, 2);
      },
    );
  } finally {
    await site2.close();
  }
});

Deno.test("stop the knowledge test server", serverTestOptions, async () => {
  await s.stop();
  await ai.close();
});
