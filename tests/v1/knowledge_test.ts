/**
 * POST /api/v1/chatbots/{key}/knowledge: training inside the request, true
 * chunk counts, retraining the same document instead of duplicating it, the
 * 422 that keeps a failed record, permissions, and that what was trained is
 * what reaches the provider's prompt.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";

/** A document with one relevant section per question and one unrelated one. */
const PRODUCT_CARE = [
  "# Warranty",
  "Blender warranty duration: every blender carries a seven year warranty.",
  "# Repairs",
  "Broken blades get replaced for free during the warranty.",
  "# Office",
  "Biscuit the office dog loves long walks.",
].join("\n");

const PATH = "/api/v1/chatbots/acme-helper/knowledge";
const owner = T.acme.owner.api;

function seed() {
  const s = standardSeed();
  // A bot whose full-text configuration does not exist: training it always fails.
  (s.workspaces[0]!.chatbots as unknown[]).push(
    { name: "Broken", public_key: "acme-broken", language: "klingon" },
  );
  return s;
}

Deno.test("v1 knowledge", serverTestOptions, async (t) => {
  const fake = startFakeAi();
  const s = await startTestServer({ seed: seed(), env: { AI_BASE_URL: fake.baseUrl } });
  const post = (body: Record<string, unknown>, token: string = owner, path = PATH) =>
    http(s.url, "POST", path, { token, body });
  const chunkRows = async (sourceId: number) =>
    (await s.deps.sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM knowledge_chunks WHERE source_id = ${sourceId}`)[0]!.n;
  const sourceCount = async () =>
    (await http(s.url, "GET", "/api/v1/chatbots/acme-helper", { token: owner })).body.data
      .knowledge_sources;
  try {
    let warrantyId = 0;
    await t.step("a bot without embedded knowledge does not embed the question", async () => {
      const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
        token: owner,
        body: { message: "Shipping times?", visitor_id: "k-0" },
      });
      assertEquals(r.status, 200, r.text);
      assertEquals(fake.embeddingRequests, 0);
    });

    await t.step(
      "a text document is trained in the request: 201, ready, true chunk count",
      async () => {
        const r = await post({ title: "Product care", content: PRODUCT_CARE });
        assertEquals(r.status, 201, r.text);
        assertEquals(Object.keys(r.body.data).sort(), [
          "chunk_count",
          "id",
          "status",
          "title",
          "type",
        ]);
        assertEquals(r.body.data.title, "Product care");
        assertEquals(r.body.data.type, "text");
        assertEquals(r.body.data.status, "ready");
        assertEquals(r.body.data.chunk_count, 3);
        assertEquals(await chunkRows(r.body.data.id), 3);
        warrantyId = r.body.data.id;
      },
    );

    await t.step("with pgvector and a provider that embeds, chunks carry embeddings", async () => {
      if (!s.deps.db.vector) return; // the real PostgreSQL here has no pgvector: full-text only
      const [row] = await s.deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM knowledge_chunks
         WHERE source_id = ${warrantyId} AND embedding IS NOT NULL`;
      assertEquals(row!.n, 3);
    });

    await t.step(
      "the same title and content retrains that record instead of adding one",
      async () => {
        const before = await sourceCount();
        const r = await post({ title: "Product care", content: PRODUCT_CARE });
        assertEquals(r.status, 200, r.text);
        assertEquals(r.body.data.id, warrantyId);
        assertEquals(r.body.data.chunk_count, 3);
        assertEquals(await sourceCount(), before);
        assertEquals(await chunkRows(warrantyId), 3);
      },
    );

    await t.step("a question and answer is one chunk", async () => {
      const r = await post({
        type: "qa",
        title: "Do you deliver to Iceland?",
        content: "Yes, Iceland deliveries take ten days.",
      });
      assertEquals(r.status, 201, r.text);
      assertEquals([r.body.data.type, r.body.data.status, r.body.data.chunk_count], [
        "qa",
        "ready",
        1,
      ]);
    });

    await t.step(
      "the trained knowledge relevant to a question reaches the prompt, the rest does not",
      async () => {
        const embedsBefore = fake.embeddingRequests;
        const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
          token: owner,
          body: { message: "Blender warranty duration?", visitor_id: "k-1" },
        });
        assertEquals(r.status, 200, r.text);
        const system = fake.requests.at(-1)!.messages[0]!.content;
        assertMatch(system, /seven year warranty/);
        if (s.deps.db.vector) {
          assertEquals(
            fake.embeddingRequests - embedsBefore,
            1,
            "hybrid: the question was embedded",
          );
        }
        assertMatch(system, /Product care — Warranty/);
        assertOk(!system.includes("Iceland"), "unrelated Q&A in prompt");
        assertOk(!system.includes("Express shipping"), "unrelated document in prompt");
        assertOk(!system.includes("Monday to Friday"), "unrelated seed Q&A in prompt");
      },
    );

    await t.step("when training fails the record is kept: 422 with its id and status", async () => {
      const r = await post(
        { title: "Doomed", content: "This cannot be indexed." },
        owner,
        "/api/v1/chatbots/acme-broken/knowledge",
      );
      assertEquals(r.status, 422, r.text);
      assertEquals(typeof r.body.id, "number");
      assertEquals(r.body.status, "failed");
      assertMatch(r.body.message, /saved but training failed/);
      assertOk(Array.isArray(r.body.errors.content));
      const again = await post(
        { title: "Doomed", content: "This cannot be indexed." },
        owner,
        "/api/v1/chatbots/acme-broken/knowledge",
      );
      assertEquals(again.status, 422);
      assertEquals(again.body.id, r.body.id, "a retry reuses the saved record");
      const bot = await http(s.url, "GET", "/api/v1/chatbots/acme-broken", { token: owner });
      assertEquals(bot.body.data.knowledge_sources, 1);
    });

    await t.step(
      "a provider refusing embeddings fails training; resending retrains the record",
      async () => {
        if (!s.deps.db.vector) return; // embeddings need pgvector (embedded mode)
        fake.mode = "unauthorized";
        const body = { title: "Gift cards", content: "Gift cards never expire." };
        const failed = await post(body);
        fake.mode = "ok";
        assertEquals(failed.status, 422, failed.text);
        assertEquals(failed.body.status, "failed");
        assertMatch(failed.body.errors.content[0], /provider key/);
        const retried = await post(body);
        assertEquals(retried.status, 200, retried.text);
        assertEquals(retried.body.data.id, failed.body.id);
        assertEquals([retried.body.data.status, retried.body.data.chunk_count], ["ready", 1]);
      },
    );

    await t.step("bad input is 422 naming the field", async () => {
      const cases: [Record<string, unknown>, string][] = [
        [{ content: "x" }, "title"],
        [{ title: "  ", content: "x" }, "title"],
        [{ title: "t".repeat(201), content: "x" }, "title"],
        [{ title: "t" }, "content"],
        [{ title: "t", content: "" }, "content"],
        [{ title: "t", content: "x", type: "url" }, "type"],
        [{ title: 5, content: "x" }, "title"],
        // A qa's content is its answer: at most 50,000 characters, like the portal's answer.
        [{ title: "q", content: "a".repeat(50_001), type: "qa" }, "content"],
      ];
      for (const [body, field] of cases) {
        const r = await post(body);
        assertEquals(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
        assertOk(Array.isArray(r.body.errors?.[field]), `${field}: ${r.text}`);
      }
    });

    await t.step("manage-content is required; another workspace's bot is 404", async () => {
      const body = { title: "x", content: "y" };
      assertEquals((await post(body, T.acme.agent.api)).status, 403);
      assertEquals((await post(body, T.acme.viewer.api)).status, 403);
      assertEquals((await post(body, T.acme.owner.portal)).status, 403);
      assertEquals((await http(s.url, "POST", PATH, { body })).status, 401);
      assertEquals((await post(body, owner, "/api/v1/chatbots/globex-bot/knowledge")).status, 404);
      const admin = await post(
        { title: "Admin note", content: "Admins may add." },
        T.acme.administrator.api,
      );
      assertEquals(admin.status, 201);
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
