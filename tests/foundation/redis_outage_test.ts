/**
 * A Redis outage, cut through the fault-injecting proxy in front of the real
 * Redis (so CI's second run only): requests answer in bounded time. What needs
 * Redis only to go faster or to fan out (events, wake-ups, rate limits, which
 * fail open) carries on; the login lockout, a security budget, answers 503
 * with Retry-After. Nothing acknowledged is lost, and everything recovers
 * once Redis is back.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { type FaultMode, startFaultProxy } from "../helpers/fault_proxy.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";

const redisUrl = Deno.env.get("REDIS_URL");

/** The bound a request may take while Redis does not answer (one command's bound, and slack). */
const BOUND_MS = 3500;

Deno.test({
  name: "Redis outage: bounded answers, nothing lost, recovery",
  ignore: !redisUrl,
  ...serverTestOptions,
  fn: async (t) => {
    const target = new URL(redisUrl!);
    const proxy = startFaultProxy({ hostname: target.hostname, port: Number(target.port || 6379) });
    const s = await startTestServer({
      seed: standardSeed(),
      env: { REDIS_URL: `redis://${target.hostname}:${proxy.port}`, LOG_LEVEL: "silent" },
    });
    const agent = T.acme.agent.agent;
    const acknowledged: string[] = [];
    const start = await fetch(`${s.url}/widget/acme-helper/stream`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ visitor_id: "v_redis_outage", message: "Hello" }),
    });
    const id = /"conversation_id":"([0-9a-f-]{36})"/.exec(await start.text())![1]!;

    const timed = async <R>(work: () => Promise<R>): Promise<[R, number]> => {
      const t0 = performance.now();
      const result = await work();
      return [result, performance.now() - t0];
    };
    const reply = (body: string) =>
      http(s.url, "POST", `/api/agent/conversations/${id}/reply`, { token: agent, body: { body } });

    try {
      for (const mode of ["refuse", "stall"] as FaultMode[]) {
        await t.step(`${mode}: bounded answers while Redis is cut off`, async () => {
          proxy.cut(mode);
          // An agent reply is stored and acknowledged; its events reach this
          // instance's sockets, and the other instances miss them.
          for (let i = 0; i < 3; i++) {
            const [r, ms] = await timed(() => reply(`During the ${mode} outage ${i}`));
            assertEquals(r.status, 200, r.text);
            assertOk(ms < BOUND_MS, `reply took ${ms.toFixed(0)} ms`);
            acknowledged.push(`During the ${mode} outage ${i}`);
          }
          // A rate-limited widget call goes through uncounted.
          const [beat, beatMs] = await timed(() =>
            http(s.url, "POST", "/widget/acme-helper/heartbeat", {
              body: { visitor_id: "v_redis_outage", conversation_id: id, chat_open: true },
            })
          );
          assertEquals(beat.status, 200, beat.text);
          assertOk(beatMs < BOUND_MS, `heartbeat took ${beatMs.toFixed(0)} ms`);
          // The login lockout cannot count attempts: 503, never a 500 or a pass.
          const [login, loginMs] = await timed(() =>
            http(s.url, "POST", "/api/agent/login", {
              body: { email: EMAIL.acmeAgent, password: PASSWORD, device_name: "outage" },
            })
          );
          assertEquals(login.status, 503, login.text);
          assertOk(Number(login.headers.get("retry-after")) > 0, "Retry-After");
          assertOk(/Redis cannot be reached/.test(login.body.message), login.text);
          assertOk(loginMs < BOUND_MS, `login took ${loginMs.toFixed(0)} ms`);
          const ready = await http(s.url, "GET", "/readyz");
          assertEquals([ready.status, ready.body.checks.redis], [503, false]);
        });

        await t.step(`${mode}: everything recovers once Redis is back`, async () => {
          proxy.heal();
          const end = Date.now() + 10_000;
          while ((await http(s.url, "GET", "/readyz")).status !== 200 && Date.now() < end) {
            await new Promise((r) => setTimeout(r, 100));
          }
          // The breaker lets the next command through within a second.
          let login = await http(s.url, "POST", "/api/agent/login", {
            body: { email: EMAIL.acmeAgent, password: PASSWORD, device_name: "after" },
          });
          for (let i = 0; login.status === 503 && i < 20; i++) {
            await new Promise((r) => setTimeout(r, 100));
            login = await http(s.url, "POST", "/api/agent/login", {
              body: { email: EMAIL.acmeAgent, password: PASSWORD, device_name: "after" },
            });
          }
          assertEquals(login.status, 200, login.text);
          assertEquals((await reply(`After the ${mode} outage`)).status, 200);
          acknowledged.push(`After the ${mode} outage`);
        });
      }

      await t.step("every acknowledged reply is stored", async () => {
        const thread = await http(s.url, "GET", `/api/agent/conversations/${id}`, { token: agent });
        const stored = new Set(
          thread.body.active.messages.map((m: { content: string }) => m.content),
        );
        for (const body of acknowledged) assertOk(stored.has(body), body);
      });
    } finally {
      await s.stop();
      await proxy.close();
    }
  },
});
