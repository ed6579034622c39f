/**
 * `deno task cluster` supervises its instances: one that dies on its own
 * (SIGKILL from outside, as the kernel's out-of-memory killer would) is
 * started again within seconds on the same port, while one stopped on
 * purpose stays stopped.
 *
 * Needs DATABASE_URL and REDIS_URL (skipped on the embedded backend).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { T } from "../helpers/fixtures.ts";
import { startTestCluster } from "./cluster_helpers.ts";

const shared = Boolean(Deno.env.get("DATABASE_URL") && Deno.env.get("REDIS_URL"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function ready(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/readyz`);
    await res.body?.cancel();
    return res.ok;
  } catch {
    return false;
  }
}

Deno.test({
  name: "a crashed instance of the cluster is started again; a stopped one is not",
  ignore: !shared,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const { cluster, close } = await startTestCluster({ instances: 2, supervise: true });
    try {
      await t.step("SIGKILL from outside: back within seconds, on the same port", async () => {
        const victim = cluster.instances[1]!;
        const pid = victim.pid;
        const killedAt = Date.now();
        Deno.kill(pid, "SIGKILL");
        while (await ready(victim.url)) await sleep(50);
        while (!(await ready(victim.url))) {
          assertOk(Date.now() - killedAt < 30_000, "the instance did not come back in 30 s");
          await sleep(100);
        }
        assertOk(victim.pid !== pid, "a new process");
        const me = await http(victim.url, "GET", "/api/agent/me", { token: T.acme.agent.agent });
        assertEquals(me.status, 200);
      });

      await t.step("an instance stopped on purpose stays stopped", async () => {
        const stopped = cluster.instances[1]!;
        await stopped.kill("SIGTERM");
        await sleep(3_000); // past the first restart delay
        assertEquals(await ready(stopped.url), false);
        assertEquals(stopped.running, false);
      });
    } finally {
      await close();
    }
  },
});
