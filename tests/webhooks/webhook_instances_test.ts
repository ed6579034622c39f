/**
 * Two instances on one PostgreSQL and one Redis (run with DATABASE_URL and
 * REDIS_URL; ignored in embedded mode, one process by design): both see every
 * domain event and both deliver, yet each event reaches the endpoint once.
 */
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { startWebhookReceiver, verifyWebhook } from "../helpers/webhook_receiver.ts";

const shared = Boolean(Deno.env.get("DATABASE_URL") && Deno.env.get("REDIS_URL"));

Deno.test({
  name: "two instances deliver each webhook event once",
  ignore: !shared,
  ...serverTestOptions,
  fn: async () => {
    const fake = startFakeAi({ reply: "Happy to help." });
    const receiver = startWebhookReceiver();
    const env = {
      ...WIDGET_ENV,
      AI_BASE_URL: fake.baseUrl,
      WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
      WEBHOOK_POLL_MS: "50",
      REDIS_PREFIX: `t${crypto.randomUUID()}:`,
    };
    const a = await startTestServer({ seed: standardSeed(), env });
    const b = await startTestServer({ databaseUrl: a.env.DATABASE_URL!, env });
    try {
      const created = await http(a.url, "POST", "/api/portal/webhooks", {
        token: T.acme.owner.portal,
        body: { url: `${receiver.url}/hook`, events: ["conversation.created", "message.created"] },
      });
      assertEquals(created.status, 201);
      const secret = created.body.data.secret as string;
      // Conversations start on both instances; each gives three events.
      const starts = [];
      for (let i = 0; i < 6; i++) {
        const server = i % 2 ? b : a;
        starts.push(
          postStream(server.url, "acme-helper", { visitor_id: `twin${i}`, message: "Hi" }),
        );
      }
      for (const r of await Promise.all(starts)) assertEquals(r.status, 200);
      await receiver.waitFor(18);
      await new Promise((r) => setTimeout(r, 1500)); // both instances keep polling
      assertEquals(receiver.received.length, 18);
      assertEquals(new Set(receiver.received.map((h) => h.id)).size, 18);
      for (const hit of receiver.received) verifyWebhook(secret, hit);
    } finally {
      await b.stop();
      await a.stop();
      await receiver.stop();
      await fake.close();
    }
  },
});
