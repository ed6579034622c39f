/**
 * The try-it box over HTTP (POST /api/dashboard/chatbots/{key}/try, SSE):
 * the passages retrieval put into the prompt with their scores, the answer
 * streamed in deltas, nothing stored and no quota used; each role, 422
 * naming the field, another workspace's bot (404), and a provider failure as
 * an `error` event.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { parseSse } from "../widget/widget_client.ts";
import { pollUntil } from "../portal/poll.ts";
import { D, dashboardSeed, ROLES } from "./dashboard_seed.ts";

const REPLY = "Parcels to Norway take four days by ferry.";
const ai = startFakeAi({ reply: REPLY });
const s = await startTestServer({ seed: dashboardSeed(), env: { AI_BASE_URL: ai.baseUrl } });

async function tryIt(token: string, key: string, body: unknown) {
  const res = await fetch(`${s.url}/api/dashboard/chatbots/${key}/try`, {
    method: "POST",
    headers: {
      accept: "text/event-stream",
      "content-type": "application/json",
      authorization: `Bearer ${token}`,
    },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const sse = (res.headers.get("content-type") ?? "").startsWith("text/event-stream");
  return {
    status: res.status,
    events: sse ? parseSse(text) : [],
    json: sse ? null : JSON.parse(text),
  };
}

const countMessages = async () =>
  Number((await s.deps.sql<{ n: number }[]>`SELECT count(*)::int AS n FROM messages`)[0]!.n);

Deno.test("dashboard try-it box", serverTestOptions, async (t) => {
  await t.step("the answer streams in after the passages it was built from", async () => {
    const add = await http(s.url, "POST", "/api/dashboard/chatbots/acme-helper/knowledge", {
      token: D.acme.owner,
      body: { type: "text", title: "Ferries", content: "Parcels to Norway travel by ferry." },
    });
    assertEquals(add.status, 201);
    await pollUntil(async () => {
      const r = await http(s.url, "GET", "/api/dashboard/chatbots/acme-helper/knowledge", {
        token: D.acme.owner,
      });
      return r.body.data.find((x: { id: number; status: string }) =>
        x.id === add.body.data.id && x.status === "ready"
      );
    }, "the source to be ready");
    const before = await countMessages();
    const r = await tryIt(D.acme.owner, "acme-helper", {
      question: "How do parcels reach Norway?",
    });
    assertEquals(r.status, 200, JSON.stringify(r.json));
    const names = r.events.map((e) => e.event);
    assertEquals(names[0], "passages");
    assertEquals(names.at(-1), "done");
    const passages = r.events[0]!.data.passages;
    const ferry = passages.find((p: { source_id: number }) => p.source_id === add.body.data.id);
    assertOk(ferry, JSON.stringify(passages));
    assertEquals(ferry.rank, 1);
    assertOk(ferry.score > 0, `score ${ferry.score}`);
    assertOk(ferry.content.includes("ferry"), ferry.content);
    const answer = r.events.filter((e) => e.event === "delta").map((e) => e.data.delta).join("");
    assertEquals(answer, REPLY);
    assertOk(r.events.at(-1)!.data.tokens_out > 0);
    // The prompt really carried the passage.
    const prompt = JSON.stringify(ai.requests.at(-1)!);
    assertOk(prompt.includes("Parcels to Norway travel by ferry."), "passage in the prompt");
    // A rehearsal: nothing stored, nothing counted.
    assertEquals(await countMessages(), before);
  });

  await t.step("owner and administrator may try; a viewer and an agent may not", async () => {
    for (const [role, token] of ROLES) {
      const r = await tryIt(token, "acme-helper", { question: "Hello?" });
      assertEquals(r.status, role === "owner" || role === "administrator" ? 200 : 403, role);
    }
    assertEquals((await tryIt("not-a-token", "acme-helper", { question: "Hi" })).status, 401);
  });

  await t.step("validation is a 422 naming the field", async () => {
    const empty = await tryIt(D.acme.owner, "acme-helper", { question: "  " });
    assertEquals(empty.status, 422);
    assertOk(empty.json.errors.question, JSON.stringify(empty.json));
    const long = await tryIt(D.acme.owner, "acme-helper", { question: "x".repeat(4001) });
    assertEquals(long.status, 422);
    assertOk(long.json.errors.question, JSON.stringify(long.json));
  });

  await t.step(
    "another workspace's bot is 404; an inactive bot of one's own can be tried",
    async () => {
      assertEquals((await tryIt(D.acme.owner, "globex-bot", { question: "Hi" })).status, 404);
      assertEquals((await tryIt(D.acme.owner, "acme-sleeper", { question: "Hi" })).status, 200);
      await ai.close();
    },
  );
});

Deno.test("stop the dashboard try-it test server", serverTestOptions, async () => {
  await s.stop();
});
