/**
 * A bot's knowledge in the dashboard over HTTP: each role, validation naming
 * the field, another workspace's bot and source (404), and a text, Q&A and url
 * source each reaching `ready`, retrained and deleted.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { page, startLocalSite } from "../helpers/local_site.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pollUntil } from "../portal/poll.ts";
import { D, dashboardSeed, ROLES } from "./dashboard_seed.ts";

const site = startLocalSite({
  "/": page("Help", ["Our warehouse ships parcels on Tuesdays."], ["/faq"]),
  "/faq": page("FAQ", ["Gift wrapping costs two euros."]),
});
const ai = startFakeAi();
const s = await startTestServer({ seed: dashboardSeed(), env: { AI_BASE_URL: ai.baseUrl } });
const base = "/chatbots/acme-helper/knowledge";
const call = (method: string, path: string, token: string, body?: unknown) =>
  http(s.url, method, `/api/dashboard${path}`, { token, body });

interface Source {
  id: number;
  status: string;
  chunk_count: number;
  error: string | null;
  pages_found: number | null;
  updated_at: string;
}

const settled = (id: number) =>
  pollUntil(
    async () => {
      const list = await call("GET", base, D.acme.viewer);
      const found = (list.body.data as Source[]).find((x) => x.id === id);
      return found && (found.status === "ready" || found.status === "failed") ? found : null;
    },
    `source ${id} to settle`,
    30_000,
  );

Deno.test("dashboard knowledge", serverTestOptions, async (t) => {
  const ids: Record<string, number> = {};

  await t.step(
    "owner and administrator add text, Q&A and url sources; each gets ready",
    async () => {
      const bodies = {
        text: { type: "text", title: "Returns", content: "Returns are free within 30 days." },
        qa: { type: "qa", question: "Do you ship to Iceland?", answer: "Yes, in five days." },
        url: { type: "url", source_url: `${site.url}/` },
      };
      for (const [type, body] of Object.entries(bodies)) {
        const token = type === "qa" ? D.acme.administrator : D.acme.owner;
        const r = await call("POST", base, token, body);
        assertEquals(r.status, 201, JSON.stringify(r.body));
        assertEquals(r.body.data.status, "pending");
        assertEquals(r.body.data.type, type);
        ids[type] = r.body.data.id;
      }
      for (const [type, id] of Object.entries(ids)) {
        const done = await settled(id);
        assertEquals(done.status, "ready", `${type}: ${done.error}`);
        assertOk(done.chunk_count > 0, `${type} has chunks`);
        assertOk(done.updated_at, "updated_at");
      }
      const url = await settled(ids.url!);
      assertEquals(url.pages_found, 2);
    },
  );

  await t.step("every role but the agent reads; only owner and administrator change", async () => {
    for (const [role, token] of ROLES) {
      const canRead = role !== "agent";
      const canChange = role === "owner" || role === "administrator";
      assertEquals((await call("GET", base, token)).status, canRead ? 200 : 403, role);
      const add = await call("POST", base, token, { type: "text", content: `By ${role}.` });
      assertEquals(add.status, canChange ? 201 : 403, role);
      const retrain = await call("POST", `${base}/${ids.text}/retrain`, token);
      assertEquals(retrain.status, canChange ? 200 : 403, role);
      if (canChange) {
        await settled(ids.text!);
        assertEquals((await call("DELETE", `${base}/${add.body.data.id}`, token)).status, 200);
      } else {
        assertEquals((await call("DELETE", `${base}/${ids.qa}`, token)).status, 403, role);
      }
    }
  });

  await t.step("retrain puts a source back to pending and it gets ready again", async () => {
    const r = await call("POST", `${base}/${ids.url}/retrain`, D.acme.owner);
    assertEquals(r.status, 200);
    assertEquals(r.body.data.status, "pending");
    const done = await settled(ids.url!);
    assertEquals(done.status, "ready", done.error ?? "");
  });

  await t.step("validation is a 422 naming each field", async () => {
    const missing = await call("POST", base, D.acme.owner, { type: "qa", question: "Why?" });
    assertEquals(missing.status, 422);
    assertOk(missing.body.errors.answer, JSON.stringify(missing.body.errors));
    const bad = await call("POST", base, D.acme.owner, {
      type: "pdf",
      source_url: "ftp://example.com/",
    });
    assertEquals(bad.status, 422);
    assertOk(bad.body.errors.type, JSON.stringify(bad.body.errors));
    assertOk(bad.body.errors.source_url, JSON.stringify(bad.body.errors));
    const zero = await call("POST", `${base}/0/retrain`, D.acme.owner);
    assertEquals(zero.status, 422);
    assertOk(zero.body.errors.source, JSON.stringify(zero.body.errors));
  });

  await t.step("another workspace's bot and sources are 404", async () => {
    const other = "/chatbots/globex-bot/knowledge";
    assertEquals((await call("GET", other, D.acme.owner)).status, 404);
    assertEquals(
      (await call("POST", other, D.acme.owner, { type: "text", content: "x" })).status,
      404,
    );
    // acme's own source through globex's token: not found either.
    assertEquals(
      (await call("POST", `${other}/${ids.text}/retrain`, D.globex.owner)).status,
      404,
    );
    assertEquals((await call("DELETE", `${other}/${ids.text}`, D.globex.owner)).status, 404);
    // A source of another bot of the same workspace is not this bot's.
    assertEquals(
      (await call("POST", `/chatbots/acme-sleeper/knowledge/${ids.text}/retrain`, D.acme.owner))
        .status,
      404,
    );
  });

  await t.step("delete removes the source and its chunks", async () => {
    assertEquals((await call("DELETE", `${base}/${ids.qa}`, D.acme.owner)).status, 200);
    const list = await call("GET", base, D.acme.owner);
    assertOk(!(list.body.data as Source[]).some((x) => x.id === ids.qa), "gone");
    assertEquals((await call("DELETE", `${base}/${ids.qa}`, D.acme.owner)).status, 404);
    await site.close();
    await ai.close();
  });
});

Deno.test("stop the dashboard knowledge test server", serverTestOptions, async () => {
  await s.stop();
});
