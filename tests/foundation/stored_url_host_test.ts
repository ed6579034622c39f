/**
 * The host of a URL the server will later fetch or POST to, checked when it
 * is stored by the one address policy (domain/crawl/address_policy.ts): a
 * host no DNS name can be (over 253 characters, a label over 63) is a 422
 * naming the field whatever the allowances say, and a single-label name
 * (`https://intranet/h`), which a resolver completes with the server's own
 * search domains, is a local name: a 422 unless the field's allowance lets
 * private targets through (WEBHOOK_ALLOW_HOSTS, CRAWL_ALLOW_PRIVATE,
 * PUSH_ALLOW_HOSTS). Webhook endpoints (create and change), knowledge
 * sources to crawl and push endpoints alike.
 */
import { assertEquals, assertMatch } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";

/** 254 characters, no label over 63: a well-formed name, one character too long for DNS. */
const LONG_HOST = ["a", "b", "c"].map((c) => c.repeat(63)).join(".") +
  `.${"d".repeat(50)}.example.com`;
const LONG_LABEL_HOST = `${"b".repeat(64)}.example.com`;

Deno.test(
  "stored URLs: host names DNS cannot hold, single-label names",
  serverTestOptions,
  async (t) => {
    assertEquals(LONG_HOST.length, 254);
    const s = await startTestServer({
      seed: standardSeed(),
      env: {
        CRAWL_ALLOW_PRIVATE: "0",
        // A listed intranet name, and the tests' own kind of receiver.
        WEBHOOK_ALLOW_HOSTS: "wiki,127.0.0.1:9",
        VAPID_GENERATE: "1",
      },
    });
    const portal = (method: string, path: string, body?: unknown) =>
      http(s.url, method, `/api/portal${path}`, { token: T.acme.owner.portal, body });
    const refused = (
      r: { status: number; body: { errors?: Record<string, string[]> }; text: string },
      field: string,
      why: RegExp,
    ) => {
      assertEquals([r.status, Object.keys(r.body.errors ?? {})], [422, [field]], r.text);
      assertMatch(r.body.errors![field]![0]!, why);
    };
    const tooLong = /253 characters/;
    const local = /private, loopback or local address/;
    try {
      await t.step("webhook endpoints: created", async () => {
        const events = ["conversation.created"];
        const cases: [string, RegExp][] = [
          [`https://${LONG_HOST}/h`, tooLong],
          [`https://${LONG_LABEL_HOST}/h`, /63 characters/],
          ["https://intranet/h", local],
          ["https://intranet./h", local],
        ];
        for (const [url, why] of cases) {
          refused(await portal("POST", "/webhooks", { url, events }), "url", why);
        }
        for (
          const url of ["https://wiki/h", "http://127.0.0.1:9/h", "https://hooks.example.com/h"]
        ) {
          const r = await portal("POST", "/webhooks", { url, events });
          assertEquals(r.status, 201, `${url}: ${r.text}`);
        }
      });

      await t.step("webhook endpoints: changed", async () => {
        const created = await portal("POST", "/webhooks", {
          url: "https://crm.example.com/h",
          events: ["conversation.created"],
        });
        assertEquals(created.status, 201, created.text);
        const id = created.body.data.id;
        refused(
          await portal("PATCH", `/webhooks/${id}`, { url: `https://${LONG_HOST}/` }),
          "url",
          tooLong,
        );
        refused(
          await portal("PATCH", `/webhooks/${id}`, { url: "https://intranet/h" }),
          "url",
          local,
        );
        const shown = await portal("GET", `/webhooks/${id}`);
        assertEquals(shown.body.data.url, "https://crm.example.com/h");
      });

      await t.step("knowledge sources to crawl (CRAWL_ALLOW_PRIVATE=0)", async () => {
        const add = (source_url: string) =>
          portal("POST", "/chatbots/acme-helper/knowledge", { type: "url", source_url });
        refused(await add(`https://${LONG_HOST}/docs`), "source_url", tooLong);
        refused(await add("https://intranet/docs"), "source_url", local);
      });

      await t.step("push endpoints", async () => {
        const keys = { p256dh: "BExample", auth: "secret" };
        const register = (endpoint: string) =>
          http(s.url, "POST", "/api/agent/push/subscriptions", {
            token: T.acme.agent.agent,
            body: { endpoint, keys },
          });
        refused(await register(`https://${LONG_HOST}/push/1`), "endpoint", tooLong);
        refused(await register("https://intranet/push/1"), "endpoint", local);
      });
    } finally {
      await s.stop();
    }
  },
);
