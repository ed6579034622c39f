/**
 * The REST API tokens panel's expiry warning and "Replace": a token a week or
 * less from expiry is `expires_soon` (a fresh one, an expired one and a
 * revoked one are not); a replacement is a new token with the same name that
 * works at once, the old one still working until it is revoked.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";

const SOON = "acme-owner-api-soon-tok-1";
const seed = dashboardSeed();
const owner = seed.workspaces[0]!.users.find((u) => u.email === "owner@acme.test")!;
(owner.tokens as { name: string; token: string; ability: string; expires_at?: string }[]).push({
  name: "CRM sync",
  token: SOON,
  ability: "api",
  expires_at: new Date(Date.now() + 3 * 86_400_000).toISOString(),
});
const s = await startTestServer({ seed });
const call = (method: string, path: string, token: string, body?: unknown) =>
  http(s.url, method, path, { token, ...(body === undefined ? {} : { body }) });

type Row = { id: number; name: string; state: string; expires_soon: boolean };

Deno.test("API tokens: expiry warning and replace", serverTestOptions, async (t) => {
  try {
    await t.step("a token three days from expiry is expires_soon; others are not", async () => {
      const list = await call("GET", "/api/dashboard/api-tokens", D.acme.owner);
      assertEquals(list.status, 200, list.text);
      const rows = list.body.data as Row[];
      const soon = rows.find((r) => r.name === "CRM sync")!;
      assertEquals(soon.expires_soon, true);
      const others = rows.filter((r) => r.name !== "CRM sync");
      assertOk(others.length > 0 && others.every((r) => !r.expires_soon), list.text);
    });

    await t.step(
      "replace: a new token, same name, both work until the old is revoked",
      async () => {
        const r = await call("POST", "/api/dashboard/api-tokens", D.acme.owner, {
          name: "CRM sync",
        });
        assertEquals(r.status, 201, r.text);
        assertEquals(r.body.data.name, "CRM sync");
        assertEquals(r.body.data.expires_soon, false);
        const fresh = r.body.token as string;
        assertEquals((await call("GET", "/api/v1/chatbots", fresh)).status, 200);
        assertEquals((await call("GET", "/api/v1/chatbots", SOON)).status, 200);
        const list = (await call("GET", "/api/dashboard/api-tokens", D.acme.owner)).body
          .data as Row[];
        const old = list.find((x) => x.name === "CRM sync" && x.expires_soon)!;
        const del = await call("DELETE", `/api/dashboard/api-tokens/${old.id}`, D.acme.owner);
        assertEquals(del.status, 200, del.text);
        assertEquals((await call("GET", "/api/v1/chatbots", SOON)).status, 401);
        assertEquals((await call("GET", "/api/v1/chatbots", fresh)).status, 200);
        const after = (await call("GET", "/api/dashboard/api-tokens", D.acme.owner)).body
          .data as Row[];
        assertOk(after.every((x) => !x.expires_soon), "a revoked token is not expiring soon");
      },
    );
  } finally {
    await s.stop();
  }
});
