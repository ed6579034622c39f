/**
 * A full-text search result is reused for the same question only while the
 * bot's knowledge is unchanged (domain/knowledge/ranked_search_cache.ts,
 * migration 0110): the widget asks the same question before and after a
 * source is added and removed, and each prompt the fake provider receives
 * holds exactly the knowledge of that moment.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const QUESTION = "How much does parking cost?";
const PARKING = "Parking in the visitor garage costs 4 euros an hour.";

Deno.test(
  "reused search results: a knowledge change shows in the next answer",
  serverTestOptions,
  async (t) => {
    const fake = startFakeAi({ reply: "ok" });
    const seed = standardSeed();
    seed.workspaces[0]!.plan = "unlimited";
    const s = await startTestServer({ seed, env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl } });
    let visitor = 0;
    /** The system prompt the widget's question produced. */
    const ask = async (via: "widget" | "v1"): Promise<string> => {
      const before = fake.requests.length;
      if (via === "widget") {
        const r = await postStream(s.url, "acme-helper", {
          visitor_id: `reuse-${visitor++}`,
          message: QUESTION,
        });
        assertEquals(r.status, 200, r.text);
        assertEquals(r.events.at(-1)?.event, "done", r.text);
      } else {
        const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/messages", {
          token: T.acme.owner.api,
          body: { message: QUESTION, visitor_id: `reuse-${visitor++}` },
        });
        assertEquals(r.status, 200, r.text);
      }
      assertEquals(fake.requests.length, before + 1);
      return fake.requests.at(-1)!.messages[0]!.content;
    };
    try {
      await t.step("the same question twice gets the same knowledge", async () => {
        const first = await ask("widget");
        assertOk(!first.includes(PARKING), first);
        assertEquals(await ask("widget"), first);
      });

      let sourceId = 0;
      await t.step("a source added since is in the next prompt", async () => {
        const r = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/knowledge", {
          token: T.acme.owner.api,
          body: { title: "Parking", content: PARKING },
        });
        assertEquals(r.status, 201, r.text);
        sourceId = r.body.data.id;
        assertOk((await ask("widget")).includes(PARKING));
        assertOk((await ask("v1")).includes(PARKING));
      });

      await t.step("a source removed since is not", async () => {
        const r = await http(
          s.url,
          "DELETE",
          `/api/portal/chatbots/acme-helper/knowledge/${sourceId}`,
          { token: T.acme.owner.portal },
        );
        assertEquals(r.status, 200, r.text);
        assertOk(!(await ask("widget")).includes(PARKING));
        assertOk(!(await ask("v1")).includes(PARKING));
      });
    } finally {
      await s.stop();
      await fake.close();
    }
  },
);
