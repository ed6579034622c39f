/**
 * The login lockout cannot be raced: a burst of wrong passwords and one right
 * one for the same e-mail from one IP, all sent at the same moment, gets at
 * most LOGIN_MAX_ATTEMPTS passwords evaluated; the rest are 429. The
 * counter is checked and taken in one atomic step, in process and in Redis.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";

const MAX = 5;

Deno.test("login lockout under a concurrent burst", serverTestOptions, async (t) => {
  const s = await startTestServer({
    seed: standardSeed(),
    env: { TRUSTED_PROXIES: "127.0.0.1", LOGIN_MAX_ATTEMPTS: String(MAX) },
  });
  const login = (password: string, ip: string) =>
    http(s.url, "POST", "/api/portal/login", {
      body: { email: EMAIL.acmeOwner, password },
      headers: { "x-forwarded-for": ip },
    });
  try {
    for (let round = 1; round <= 3; round++) {
      await t.step(`round ${round}: nine wrong and one right at once`, async () => {
        const ip = `10.77.0.${round}`;
        const passwords = Array.from({ length: 9 }, (_, i) => `wrong-${i}`);
        passwords.splice(round * 3, 0, PASSWORD);
        const answers = await Promise.all(passwords.map((p) => login(p, ip)));
        const statuses = answers.map((r) => r.status);
        const evaluated = statuses.filter((st) => st !== 429).length;
        assertOk(evaluated <= MAX, `evaluated ${evaluated}: ${statuses.join(",")}`);
        assertOk(statuses.every((st) => [200, 401, 429].includes(st)), statuses.join(","));
        for (const r of answers.filter((a) => a.status === 429)) {
          assertOk(Number(r.headers.get("retry-after")) >= 1, "Retry-After");
        }
      });
    }

    await t.step("five wrong at once lock the pair; the right password then gets 429", async () => {
      const ip = "10.77.1.1";
      const burst = await Promise.all(
        Array.from({ length: 8 }, (_, i) => login(`nope-${i}`, ip)),
      );
      assertEquals(burst.filter((r) => r.status === 401).length, MAX);
      assertEquals(burst.filter((r) => r.status === 429).length, 3);
      assertEquals((await login(PASSWORD, ip)).status, 429);
      // Another IP is not locked.
      assertEquals((await login(PASSWORD, "10.77.1.2")).status, 200);
    });
  } finally {
    await s.stop();
  }
});
