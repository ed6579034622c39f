/**
 * One vocabulary (docs/vocabulary.md): the history filters on the four states
 * (`state=waiting` finds the conversations waiting for a human, which the
 * wire's `status=bot` cannot tell from those with the AI), and the CSV export
 * carries the same words beside the wire values; a bad state is 422 naming it.
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream } from "../widget/widget_client.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";

Deno.test(
  "the history speaks the four states, and filters on waiting",
  serverTestOptions,
  async () => {
    const fake = startFakeAi({ reply: "Happy to help." });
    const s = await startTestServer({
      seed: dashboardSeed(),
      env: { TRUSTED_PROXIES: "127.0.0.1", AI_BASE_URL: fake.baseUrl },
    });
    try {
      const converse = async (visitor: string) =>
        (await postStream(s.url, "acme-helper", { visitor_id: visitor, message: "Hello" }))
          .events[0]!
          .data.conversation_id as string;
      const withAi = await converse("v_ai");
      const waiting = await converse("v_wait");
      const human = await converse("v_human");
      const asked = await http(s.url, "POST", "/widget/acme-helper/handoff", {
        headers: freshIp(),
        body: { visitor_id: "v_wait", conversation_id: waiting },
      });
      assertEquals(asked.status, 200, JSON.stringify(asked.body));
      const took = await http(s.url, "POST", `/api/agent/conversations/${human}/takeover`, {
        token: T.acme.agent.agent,
      });
      assertEquals(took.status, 200);

      const ids = async (query: string) => {
        const res = await http(s.url, "GET", `/api/dashboard/conversations?${query}`, {
          token: D.acme.owner,
        });
        assertEquals(res.status, 200, JSON.stringify(res.body));
        return (res.body.data as { id: string }[]).map((r) => r.id).sort();
      };
      assertEquals(await ids("state=waiting"), [waiting]);
      assertEquals(await ids("state=ai"), [withAi]);
      assertEquals(await ids("state=human"), [human]);
      assertEquals(await ids("state=resolved"), []);
      // The wire's status cannot tell the two apart: both are `bot`.
      assertEquals(await ids("status=bot"), [withAi, waiting].sort());

      const bad = await http(s.url, "GET", "/api/dashboard/conversations?state=pending", {
        token: D.acme.owner,
      });
      assertEquals(bad.status, 422);
      assert(bad.body.errors.state, JSON.stringify(bad.body));

      const csv = await fetch(`${s.url}/api/dashboard/conversations/export`, {
        headers: { authorization: `Bearer ${D.acme.owner}` },
      });
      assertEquals(csv.status, 200);
      const lines = (await csv.text()).replace(/^\uFEFF/, "").split("\r\n").filter(Boolean);
      const head = lines[0]!.split(",");
      const col = (name: string) => head.indexOf(name);
      assert(col("state") > col("handoff_state"), lines[0]);
      const byId = new Map(lines.slice(1).map((l) => [l.split(",")[0]!, l.split(",")]));
      assertEquals(byId.get(waiting)![col("status")], "bot");
      assertEquals(byId.get(waiting)![col("handoff_state")], "handoff_pending");
      assertEquals(byId.get(waiting)![col("state")], "Waiting for a human");
      assertEquals(byId.get(withAi)![col("state")], "With the AI");
      assertEquals(byId.get(human)![col("state")], "With a human");
    } finally {
      await s.stop();
      await fake.close();
    }
  },
);
