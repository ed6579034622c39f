/**
 * Training never fails because a provider has no embeddings API: when
 * /embeddings answers 404 (most vendors without one) or 400 "not supported"
 * (local servers), a text or Q&A source is indexed for full-text search,
 * becomes `ready`, and answers use it. A transient embeddings failure (500)
 * keeps the spec's 422 with id and status, and sending the same document again
 * retrains that record once the provider is back. Run on both backends; where
 * pgvector is absent no embedding is ever asked for, and training is ready.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pollUntil } from "../portal/poll.ts";

const PATH = "/api/v1/chatbots/acme-helper/knowledge";
const owner = T.acme.owner.api;

Deno.test("training without an embeddings API", serverTestOptions, async (t) => {
  const fake = startFakeAi({ embeddingsMode: "missing" });
  const s = await startTestServer({ seed: standardSeed(), env: { AI_BASE_URL: fake.baseUrl } });
  const post = (body: Record<string, unknown>) => http(s.url, "POST", PATH, { token: owner, body });
  const ask = async (message: string) => {
    const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
      token: owner,
      body: { message, visitor_id: `e-${crypto.randomUUID()}` },
    });
    assertEquals(r.status, 200, r.text);
    return fake.requests.at(-1)!.messages[0]!.content;
  };
  const vector = s.deps.db.vector;
  try {
    await t.step("/embeddings 404: a text source is ready and answers use it", async () => {
      const before = fake.embeddingRequests;
      const r = await post({
        title: "Loyalty programme",
        content: "Members of the Pineapple Club collect three stamps for every purchase.",
      });
      assertEquals(r.status, 201, r.text);
      assertEquals(r.body.data.status, "ready");
      assertOk(r.body.data.chunk_count >= 1);
      if (vector) assertOk(fake.embeddingRequests > before, "embeddings were tried");
      assertMatch(await ask("How many stamps does the Pineapple Club give?"), /three stamps/);
    });

    await t.step("/embeddings 404: a Q&A source is ready and answers use it", async () => {
      const r = await post({
        type: "qa",
        title: "Can I bring my llama to the store?",
        content: "Llamas are welcome in the garden centre only.",
      });
      assertEquals(r.status, 201, r.text);
      assertEquals(r.body.data.status, "ready");
      assertMatch(await ask("Can I bring my llama?"), /garden centre only/);
    });

    await t.step("/embeddings 400 'not supported': ready as well", async () => {
      fake.embeddingsMode = "unsupported";
      const r = await post({ title: "Parking", content: "Parking is free behind the bakery." });
      assertEquals(r.status, 201, r.text);
      assertEquals(r.body.data.status, "ready");
    });

    await t.step("a portal source, indexed by the background job, becomes ready", async () => {
      fake.embeddingsMode = "missing";
      const created = await http(s.url, "POST", "/api/portal/chatbots/acme-helper/knowledge", {
        token: T.acme.owner.portal,
        body: { type: "text", title: "Returns", content: "Returns are accepted for 45 days." },
      });
      assertEquals(created.status, 201, created.text);
      const ready = await pollUntil(async () => {
        const list = await http(s.url, "GET", "/api/portal/chatbots/acme-helper/knowledge", {
          token: T.acme.owner.portal,
        });
        const row = list.body.data.find((x: { id: number }) => x.id === created.body.data.id);
        return row.status === "ready" || row.status === "failed" ? row : null;
      }, "the source to be indexed");
      assertEquals([ready.status, ready.error], ["ready", null]);
      assertMatch(await ask("How long are returns accepted?"), /45 days/);
    });

    await t.step("/embeddings 500: 422 with id and status; resending retrains it", async () => {
      fake.embeddingsMode = "server_error";
      const body = { title: "Gift wrap", content: "Gift wrapping costs two euros." };
      const failed = await post(body);
      fake.embeddingsMode = "ok";
      if (!vector) {
        // No pgvector: embeddings are never asked for, so nothing can fail.
        assertEquals(failed.status, 201, failed.text);
        return;
      }
      assertEquals(failed.status, 422, failed.text);
      assertEquals([typeof failed.body.id, failed.body.status], ["number", "failed"]);
      assertMatch(failed.body.errors.content[0], /HTTP 500/);
      const retried = await post(body);
      assertEquals(retried.status, 200, retried.text);
      assertEquals(retried.body.data.id, failed.body.id);
      assertEquals(retried.body.data.status, "ready");
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
