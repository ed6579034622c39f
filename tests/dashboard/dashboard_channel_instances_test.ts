/**
 * The dashboard channel across two instances on one PostgreSQL and Redis: a
 * dashboard socket on instance B (signed by B's broadcasting/auth) hears the
 * progress of a crawl added through instance A, whichever instance runs the
 * job, and the figures changing after a visitor converses through A.
 *
 * Needs DATABASE_URL and REDIS_URL (skipped, ignored, on the embedded backend).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { page, startLocalSite } from "../helpers/local_site.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startSecondInstance } from "../helpers/second_instance.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { nextEvent, pusherClient, subscribe } from "../realtime/pusher_helpers.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";

const shared = Boolean(Deno.env.get("DATABASE_URL") && Deno.env.get("REDIS_URL"));

Deno.test({
  name: "dashboard channel: events cross instances",
  ignore: !shared,
  ...serverTestOptions,
  fn: async (t) => {
    const site = startLocalSite({
      "/": page("Help", ["Our warehouse ships parcels on Tuesdays."], ["/faq"]),
      "/faq": page("FAQ", ["Gift wrapping costs two euros."]),
    }, { delayMs: 200 });
    const ai = startFakeAi({ reply: "On Tuesdays." });
    const a = await startTestServer({
      seed: dashboardSeed(),
      env: { ...WIDGET_ENV, AI_BASE_URL: ai.baseUrl },
    });
    const b = await startSecondInstance(a.env);
    const onB = pusherClient(b, { token: D.acme.owner, surface: "dashboard" });
    try {
      const me = await http(b.url, "GET", "/api/dashboard/me", { token: D.acme.owner });
      const joined = await subscribe(onB, `private-dashboard.${me.body.company.id}`);
      assertOk(joined.ok, JSON.stringify(!joined.ok && joined.error));
      const channel = joined.ok ? joined.channel : null!;

      await t.step("a crawl added through A is followed on B to the end", async () => {
        let id: number | null = null;
        const seen: { source_id: number; status: string; done: boolean; pages_indexed: number }[] =
          [];
        const done = new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(JSON.stringify(seen))), 30_000);
          channel.bind("source.progress", (p: (typeof seen)[number]) => {
            seen.push(p);
            if (p.source_id === id && p.done) {
              clearTimeout(timer);
              resolve();
            }
          });
        });
        const r = await http(a.url, "POST", "/api/dashboard/chatbots/acme-helper/knowledge", {
          token: D.acme.owner,
          body: { type: "url", source_url: `${site.url}/` },
        });
        assertEquals(r.status, 201);
        id = r.body.data.id;
        await done;
        const last = seen.filter((p) => p.source_id === id).at(-1)!;
        assertEquals([last.status, last.pages_indexed], ["ready", 2]);
        // Each event once, though both instances heard it on the bus.
        const keys = seen.map((p) => JSON.stringify(p));
        assertEquals(new Set(keys).size, keys.length, keys.join("\n"));
      });

      await t.step("a visitor conversing through A moves B's overview", async () => {
        const stats = nextEvent<{ what: string }>(channel, "stats.changed");
        const reply = await postStream(a.url, "acme-helper", {
          visitor_id: "v_two_dash",
          message: "When do you ship?",
        });
        assertEquals(reply.status, 200);
        assertOk(["message", "conversation"].includes((await stats).what));
      });
    } finally {
      onB.disconnect();
      await b.stop();
      await a.stop();
      await site.close();
      await ai.close();
    }
  },
});
