/**
 * Two instances on one PostgreSQL and one Redis (run with DATABASE_URL and
 * REDIS_URL; ignored in embedded mode, which is one process by design): every
 * instance sees every domain event and runs the SLA check, yet each alert
 * reaches each subscription once.
 */
import webpush from "web-push";
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pushEnv, startPushService } from "../helpers/push_service.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";

const shared = Boolean(Deno.env.get("DATABASE_URL") && Deno.env.get("REDIS_URL"));

Deno.test({
  name: "two instances raise each alert once",
  ignore: !shared,
  ...serverTestOptions,
  fn: async () => {
    const fake = startFakeAi({ reply: "Happy to help." });
    const push = await startPushService();
    const vapid = webpush.generateVAPIDKeys();
    const env = {
      ...WIDGET_ENV,
      AI_BASE_URL: fake.baseUrl,
      ...pushEnv(push, vapid),
      SLA_CHECK_SECONDS: "1",
      REDIS_PREFIX: `t${crypto.randomUUID()}:`,
    };
    const a = await startTestServer({ seed: standardSeed(), env });
    const b = await startTestServer({ databaseUrl: a.env.DATABASE_URL!, env });
    try {
      const sub = await push.subscribe();
      const r = await http(a.url, "POST", "/api/agent/push/subscriptions", {
        token: T.acme.agent.agent,
        body: { endpoint: sub.endpoint, keys: sub.keys },
      });
      assertEquals(r.status, 201);
      // The conversation starts on one instance and the handoff on the other.
      const first = await postStream(a.url, "acme-helper", { visitor_id: "twin", message: "Hi" });
      const id = first.events[0]!.data.conversation_id as string;
      const h = await http(b.url, "POST", "/widget/acme-helper/handoff", {
        body: { visitor_id: "twin", conversation_id: id },
        headers: freshIp(),
      });
      assertEquals(h.status, 200);
      await a.deps.sql`
        UPDATE conversations SET handoff_requested_at = now() - interval '10 minutes'
         WHERE public_id = ${id}`;
      const kinds = ["chat_started", "handoff_requested", "sla_breach"];
      for (const kind of kinds) {
        await push.waitFor((p) => p.payload.kind === kind && p.payload.conversation_id === id);
      }
      await new Promise((r) => setTimeout(r, 3000)); // several checks on both instances
      for (const kind of kinds) {
        const n = push.received.filter((p) =>
          p.payload.kind === kind && p.payload.conversation_id === id
        ).length;
        assertEquals(n, 1, `${kind} arrived ${n} times`);
      }
      assertEquals(push.rejected, []);
    } finally {
      await b.stop();
      await a.stop();
      await push.stop();
      await fake.close();
    }
  },
});
