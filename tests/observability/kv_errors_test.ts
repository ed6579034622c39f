/**
 * Kv (Redis) errors on /metrics: with Redis cut off through the fault proxy
 * (so CI's Redis run only), the commands that fail are counted by name.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { startFaultProxy } from "../helpers/fault_proxy.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { scrape } from "./prometheus.ts";

const redisUrl = Deno.env.get("REDIS_URL");
const TOKEN = "metrics-test-token-0123456789";

Deno.test({
  name: "metrics: Kv errors counted by command while Redis is cut off",
  ignore: !redisUrl,
  ...serverTestOptions,
  fn: async () => {
    const target = new URL(redisUrl!);
    const proxy = startFaultProxy({ hostname: target.hostname, port: Number(target.port || 6379) });
    const s = await startTestServer({
      seed: standardSeed(),
      env: {
        REDIS_URL: `redis://${target.hostname}:${proxy.port}`,
        LOG_LEVEL: "silent",
        METRICS_TOKEN: TOKEN,
      },
    });
    try {
      const before = await scrape(s.url, TOKEN);
      assertEquals(before.sum("parley_kv_errors_total"), 0);
      proxy.cut("refuse");
      // A rate-limited call: its counter fails open, and the failed command is counted.
      const r = await fetch(`${s.url}/widget/acme-helper/stream`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ visitor_id: "v_kv_errors", message: "Hello" }),
      });
      assertEquals(r.status, 200);
      await r.body?.cancel();
      proxy.heal();
      const after = await scrape(s.url, TOKEN);
      assertOk(after.sum("parley_kv_errors_total", { command: "hit" }) >= 1, after.text);
      assertOk(!after.text.includes(`${proxy.port}`), "no address in a label");
    } finally {
      proxy.heal();
      await s.stop();
      await proxy.close();
    }
  },
});
