/**
 * The foundation's HTTP contract, black-box over one server on the standard
 * seed: authentication (401/403/404 by token, ability, role, suspension,
 * workspace), the error bodies, the tRPC door, the OpenAPI document, rate
 * limits, idempotent seeding, and a server fault that leaks nothing.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { PASSWORD, PASSWORD_HASH, standardSeed, T } from "../helpers/fixtures.ts";
import { applySeed } from "../../domain/seed/apply_seed.ts";
import { createToken } from "../../domain/admin/create_token.ts";
import { revokeToken } from "../../domain/admin/revoke_token.ts";
import { createStorage, startOn } from "./server_with_deps.ts";

const V1_READS = ["/api/v1/me", "/api/v1/chatbots", "/api/v1/chatbots/acme-helper"];
const ROLES = ["owner", "administrator", "agent", "viewer"] as const;
const UNAUTHENTICATED = { message: "Unauthenticated." };

/** Rows of the seeded tables, minus what a request may touch (last_used_at). */
async function dumpSeededTables(sql: import("../../db/client.ts").Sql): Promise<string> {
  const tables = [
    "plans",
    "workspaces",
    "users",
    "access_tokens",
    "provider_keys",
    "chatbots",
    "knowledge_sources",
    "knowledge_chunks",
    "tags",
    "canned_replies",
  ];
  const out: Record<string, unknown[]> = {};
  for (const t of tables) {
    const rows = await sql.unsafe(`SELECT * FROM ${t}`);
    out[t] = rows.map((r: Record<string, unknown>) => {
      const { last_used_at: _ignored, embedding: _vector, tsv: _tsv, ...rest } = r;
      return JSON.stringify(rest);
    }).sort();
  }
  return JSON.stringify(out);
}

Deno.test("foundation HTTP contract", serverTestOptions, async (t) => {
  const storage = await createStorage();
  // Silent: the fault step below logs a stack on purpose.
  const s = await startOn(storage, { seed: standardSeed(), env: { LOG_LEVEL: "silent" } });
  const get = (path: string, token?: string) => http(s.url, "GET", path, { token });
  try {
    await t.step("seeding the same file twice changes no row", async () => {
      const before = await dumpSeededTables(s.deps.sql);
      await applySeed({ sql: s.deps.sql, appKey: s.deps.appKey, now: new Date() }, standardSeed());
      assertEquals(await dumpSeededTables(s.deps.sql), before);
    });

    await t.step("a seed user gives a password or a bcrypt hash; both sign in", async () => {
      const deps = { sql: s.deps.sql, appKey: s.deps.appKey, now: new Date() };
      const seed = (users: unknown[]) => ({
        workspaces: [{ name: "Seeded", slug: "seeded-passwords", users }],
      });
      const people = [
        { name: "Pat Plain", email: "plain@seeded.test", password: "a plain seed password" },
        { name: "Hal Hashed", email: "hashed@seeded.test", password_hash: PASSWORD_HASH },
      ];
      await applySeed(deps, seed(people));
      const stored = () =>
        s.deps.sql<{ email: string; password_hash: string }[]>`
          SELECT email, password_hash FROM users WHERE email LIKE '%@seeded.test' ORDER BY email`;
      const first = await stored();
      assertEquals(first.map((u) => u.email), ["hashed@seeded.test", "plain@seeded.test"]);
      assertEquals(first[0]!.password_hash, PASSWORD_HASH);
      assertOk(first[1]!.password_hash.startsWith("$2"), "the plain password is stored hashed");
      for (
        const [email, password] of [
          ["plain@seeded.test", "a plain seed password"],
          ["hashed@seeded.test", PASSWORD],
        ]
      ) {
        const login = await http(s.url, "POST", "/api/agent/login", {
          body: { email, password, device_name: "seed check" },
        });
        assertEquals(login.status, 200, `${email}: ${JSON.stringify(login.body)}`);
      }
      await applySeed(deps, seed(people));
      assertEquals(await stored(), first, "applied again, neither hash is rewritten");

      const refused = async (users: unknown[]) => {
        try {
          await applySeed(deps, seed(users));
        } catch (err) {
          return (err as { errors?: Record<string, string[]> }).errors ?? {};
        }
        throw new Error("the seed was accepted");
      };
      const who = { name: "Wes Weak", email: "weak@seeded.test" };
      // Cost 4: quick to guess, refused; a hash that is not bcrypt; both; neither.
      const weak = PASSWORD_HASH.replace("$10$", "$04$");
      assertEquals(
        Object.keys(await refused([{ ...who, password_hash: weak }])),
        ["workspaces.0.users.0.password_hash"],
      );
      assertEquals(
        Object.keys(await refused([{ ...who, password_hash: "md5:0123456789abcdef" }])),
        ["workspaces.0.users.0.password_hash"],
      );
      for (const both of [{ ...who, password: "x", password_hash: PASSWORD_HASH }, who]) {
        assertEquals(Object.keys(await refused([both])), ["workspaces.0.users.0.password"]);
      }
      const [weakRows] = await s.deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM users WHERE email = 'weak@seeded.test'`;
      assertEquals(weakRows?.n, 0);
    });

    await t.step("a missing or malformed Authorization header is 401", async () => {
      for (const path of V1_READS) {
        const none = await get(path);
        assertEquals([none.status, none.body], [401, UNAUTHENTICATED], path);
        for (
          const header of [
            "Bearer",
            "Basic dXNlcjpwYXNz",
            "Bearer short",
            "Bearer 99999|no-such-token-secret",
            `Token ${T.acme.owner.api}`,
            `Bearer ${T.acme.owner.api} extra`,
          ]
        ) {
          const res = await http(s.url, "GET", path, { headers: { authorization: header } });
          assertEquals(res.status, 401, `${path} with "${header}"`);
          assertEquals(Object.keys(res.body), ["message"]);
        }
      }
    });

    await t.step("an expired token is 401", async () => {
      for (const path of V1_READS) {
        const res = await get(path, T.acme.expired);
        assertEquals([res.status, res.body], [401, { message: "This token has expired." }]);
      }
    });

    await t.step("a revoked token is 401 from the next request on", async () => {
      const deps = { sql: s.deps.sql, appKey: s.deps.appKey, now: new Date() };
      const issued = await createToken(deps, { email: "owner@acme.test", name: "to revoke" });
      assertMatch(issued.token, /^\d+\|[A-Za-z0-9_-]{40}$/);
      assertEquals((await get("/api/v1/me", issued.token)).status, 200);
      await revokeToken(deps, { id: issued.id });
      for (const path of V1_READS) {
        const res = await get(path, issued.token);
        assertEquals([res.status, res.body], [401, { message: "This token has been revoked." }]);
      }
      const wrongSecret = `${issued.id}|${"x".repeat(40)}`;
      assertEquals((await get("/api/v1/me", wrongSecret)).status, 401);
    });

    await t.step("an api token of every role reads v1; last_used_at is kept", async () => {
      for (const role of ROLES) {
        for (const path of V1_READS) {
          const res = await get(path, T.acme[role].api);
          assertEquals(res.status, 200, `${role} ${path}`);
        }
        const me = await get("/api/v1/me", T.acme[role].api);
        assertEquals(me.body.user.role, role);
        assertEquals(me.body.company.slug, "acme");
      }
      const [row] = await s.deps.sql<{ n: number }[]>`
        SELECT count(*)::int AS n FROM access_tokens
         WHERE name = 'api' AND last_used_at IS NOT NULL`;
      assertOk(row!.n >= 4, "last_used_at written on use");
    });

    await t.step("portal and agent tokens on v1 are 403, for every role", async () => {
      for (const role of ROLES) {
        for (const ability of ["portal", "agent"] as const) {
          for (const path of V1_READS) {
            const res = await get(path, T.acme[role][ability]);
            assertEquals(res.status, 403, `${role} ${ability} ${path}`);
            assertEquals(res.body, {
              message: "This token does not have the api ability required here.",
            });
          }
        }
      }
    });

    await t.step("an api token on the portal surface is 403", async () => {
      const res = await get("/api/portal/me", T.acme.owner.api);
      assertEquals(res.status, 403);
    });

    await t.step("a suspended account or workspace is 403", async () => {
      for (const path of V1_READS) {
        const user = await get(path, T.acme.suspendedUser);
        assertEquals([user.status, user.body], [403, { message: "This account is suspended." }]);
        const ws = await get(path, T.suspendedWorkspace.owner.api);
        assertEquals([ws.status, ws.body], [403, { message: "This workspace is suspended." }]);
      }
    });

    await t.step("role permissions: agent and viewer lack manage-content (403)", async () => {
      const path = "/api/v1/chatbots/acme-helper/knowledge";
      for (const role of ROLES) {
        const res = await http(s.url, "POST", path, { token: T.acme[role].api, body: {} });
        const allowed = role === "owner" || role === "administrator";
        // Allowed roles get past the guard and fail validation on the empty body.
        assertEquals(res.status, allowed ? 422 : 403, role);
        if (!allowed) {
          assertEquals(res.body, {
            message: "Your role does not have the manage-content permission.",
          });
        }
      }
    });

    await t.step("role permissions: the viewer lacks handle-conversations (403)", async () => {
      const path = "/api/v1/chatbots/acme-helper/messages";
      for (const role of ROLES) {
        const res = await http(s.url, "POST", path, { token: T.acme[role].api, body: {} });
        assertEquals(res.status, role === "viewer" ? 403 : 422, role);
      }
    });

    await t.step(
      "another workspace's bot is 404 with the same body as an unknown one",
      async () => {
        const foreign = await get("/api/v1/chatbots/acme-helper", T.globex.owner.api);
        const unknown = await get("/api/v1/chatbots/no-such-bot", T.globex.owner.api);
        assertEquals(foreign.status, 404);
        assertEquals(foreign.text, unknown.text);
        assertEquals(Object.keys(foreign.body), ["message"]);
        const list = await get("/api/v1/chatbots", T.globex.owner.api);
        assertEquals(list.body.data.map((b: { public_key: string }) => b.public_key), [
          "globex-bot",
        ]);
      },
    );

    await t.step("unknown path: 404 JSON", async () => {
      const res = await get("/api/v1/nothing-here");
      assertEquals([res.status, res.body], [404, { message: "Not found." }]);
      assertMatch(res.headers.get("content-type") ?? "", /^application\/json/);
    });

    await t.step("wrong method: 405 JSON with Allow", async () => {
      const res = await http(s.url, "DELETE", "/api/v1/me", { token: T.acme.owner.api });
      assertEquals(res.status, 405);
      assertEquals(res.headers.get("allow"), "GET");
      assertEquals(res.body, { message: "The DELETE method is not supported for this route." });
    });

    await t.step("malformed JSON body: 400 JSON", async () => {
      const res = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/knowledge", {
        token: T.acme.owner.api,
        rawBody: '{"type": "text",',
      });
      assertEquals([res.status, res.body], [400, {
        message: "The request body is not valid JSON.",
      }]);
      const array = await http(s.url, "POST", "/api/v1/chatbots/acme-helper/knowledge", {
        token: T.acme.owner.api,
        rawBody: "[1,2]",
      });
      assertEquals(array.status, 400);
    });

    await t.step("validation: 422 {message, errors} naming the request's field", async () => {
      const res = await get(`/api/v1/chatbots/${"k".repeat(256)}`, T.acme.owner.api);
      assertEquals(res.status, 422);
      assertEquals(res.body, {
        message: "The key field must not be greater than 255 characters.",
        errors: { key: ["The key field must not be greater than 255 characters."] },
      });
    });

    await t.step("a NUL character in path, query or body is 422 naming it, not 500", async () => {
      const path = await get("/api/v1/chatbots/acme%00helper", T.acme.owner.api);
      assertEquals(path.status, 422);
      assertEquals(path.body, {
        message: "The key field must not contain a NUL character.",
        errors: { key: ["The key field must not contain a NUL character."] },
      });
      const query = await get("/widget/acme-helper/conversation?visitor_id=v%00");
      assertEquals([query.status, Object.keys(query.body.errors)], [422, ["visitor_id"]]);
      const body = await http(s.url, "POST", "/widget/acme-helper/heartbeat", {
        body: { visitor_id: "v1", chat_open: true, page_url: "https://x.test/\u0000" },
      });
      assertEquals([body.status, Object.keys(body.body.errors)], [422, ["page_url"]]);
      const trpc = await get(
        `/trpc/v1.showBot?input=${encodeURIComponent(JSON.stringify({ key: "a\u0000" }))}`,
        T.acme.owner.api,
      );
      assertEquals(trpc.body.error.data.httpStatus, 422);
      assertEquals(Object.keys(trpc.body.error.data.errors), ["key"]);
    });

    await t.step("the tRPC door: same procedures, our messages, no stack", async () => {
      const ok = await get("/trpc/v1.me", T.acme.owner.api);
      assertEquals(ok.status, 200);
      assertEquals(ok.body.result.data.company.slug, "acme");
      const denied = await get("/trpc/v1.me");
      assertEquals(denied.status, 401);
      assertEquals(denied.body.error.message, "Unauthenticated.");
      assertOk(!/stack/i.test(denied.text), denied.text);
      const invalid = await get(
        `/trpc/v1.showBot?input=${encodeURIComponent(JSON.stringify({ key: "k".repeat(256) }))}`,
        T.acme.owner.api,
      );
      assertEquals(invalid.body.error.data.httpStatus, 422);
      assertEquals(Object.keys(invalid.body.error.data.errors), ["key"]);
      assertOk(!/stack/i.test(invalid.text), invalid.text);
    });

    await t.step("GET /api/openapi.json lists the v1 paths; /api/docs is HTML", async () => {
      const doc = await get("/api/openapi.json");
      assertEquals(doc.status, 200);
      for (const path of ["/api/v1/me", "/api/v1/chatbots", "/api/v1/chatbots/{key}"]) {
        assertOk(doc.body.paths[path]?.get, `${path} documented`);
      }
      const page = await http(s.url, "GET", "/api/docs", { headers: { accept: "text/html" } });
      assertEquals(page.status, 200);
      assertMatch(page.headers.get("content-type") ?? "", /^text\/html/);
      assertMatch(page.text, /^<!doctype html>/);
    });

    await t.step("/healthz and /readyz answer", async () => {
      assertEquals((await get("/healthz")).body, { status: "ok" });
      const ready = await get("/readyz");
      assertEquals([ready.status, ready.body.status], [200, "ready"]);
    });

    await t.step("rate limit: headers on every answer, then 429 with Retry-After", async () => {
      // POST /widget/{key}/handoff: 10 per minute per IP; counted before validation.
      const path = "/widget/acme-helper/handoff";
      for (let i = 1; i <= 10; i++) {
        const res = await http(s.url, "POST", path, { body: {} });
        assertEquals(res.status, 422);
        assertEquals(res.headers.get("x-ratelimit-limit"), "10");
        assertEquals(res.headers.get("x-ratelimit-remaining"), String(10 - i));
      }
      const limited = await http(s.url, "POST", path, { body: {} });
      assertEquals(limited.status, 429);
      assertEquals(limited.headers.get("x-ratelimit-remaining"), "0");
      const retry = Number(limited.headers.get("retry-after"));
      assertOk(retry >= 1 && retry <= 60, `Retry-After ${retry}`);
      assertEquals(Object.keys(limited.body), ["message"]);
      // Without TRUSTED_PROXIES a forged X-Forwarded-For is not a new client.
      const forged = await http(s.url, "POST", path, {
        body: {},
        headers: { "x-forwarded-for": "203.0.113.9" },
      });
      assertEquals(forged.status, 429);
    });

    await t.step(
      "an unexpected fault is 500 {message} with the detail in the log only",
      async () => {
        await s.deps.sql`ALTER TABLE access_tokens RENAME TO access_tokens_gone`;
        try {
          const rest = await get("/api/v1/me", T.acme.owner.api);
          assertEquals([rest.status, rest.body], [500, { message: "Server error." }]);
          const trpc = await get("/trpc/v1.me", T.acme.owner.api);
          assertEquals(trpc.status, 500);
          assertEquals(trpc.body.error.message, "Server error.");
          for (const text of [rest.text, trpc.text]) {
            assertOk(!/stack|access_tokens|relation|\.ts:/i.test(text), text);
          }
        } finally {
          await s.deps.sql`ALTER TABLE access_tokens_gone RENAME TO access_tokens`;
        }
      },
    );
  } finally {
    await s.stop();
    await storage.drop();
  }
});
