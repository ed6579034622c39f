/**
 * The audit log, black-box: each wired action performed through the real
 * HTTP API (and the admin CLI's link) leaves exactly one row naming the
 * actor, the client address and the record; GET /api/dashboard/audit-log
 * filters by person, action and date and pages by cursor; only owners and
 * administrators read it, only their own workspace's rows; the CSV export
 * agrees; rows older than AUDIT_RETENTION_DAYS are pruned by the background
 * sweep with an `audit.pruned` row; and no secret the test created appears
 * anywhere in the table.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import {
  createTestDatabase,
  serverTestOptions,
  startTestServer,
  type TestServer,
} from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { waitUntil } from "../helpers/wait.ts";
import { cli } from "../helpers/admin_cli.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";

const CLIENT_IP = "203.0.113.7";
const PROVIDER_KEY = "sk-audit-provider-secret-5150";
const BILLING_KEY = "sk_test_audit_billing_secret_8086";
const CLI_BILLING_KEY = "sk_live_audit_cli_secret_6502";
const HOOK_URL = "http://127.0.0.1:9/hook?token=receiver-query-secret-z80";

type Row = {
  id: number;
  occurred_at: string;
  actor: { user_id: number | null; label: string; token_id: number | null };
  ip: string | null;
  action: string;
  target: { type: string; id: string } | null;
  details: Record<string, unknown>;
};

const dataDir = await Deno.makeTempDir({ prefix: "parley-audit-" });
const database = await createTestDatabase();
const serverOptions = {
  seed: dashboardSeed(),
  dataDir,
  ...(database ? { databaseUrl: database.url } : {}),
  env: {
    TRUSTED_PROXIES: "127.0.0.1",
    WEBHOOK_ALLOW_HOSTS: "127.0.0.1:9",
    AUDIT_PRUNE_SECONDS: "1",
    AUDIT_RETENTION_DAYS: "365",
  },
};
let s: TestServer = await startTestServer(serverOptions);

const call = (method: string, path: string, token: string, body?: unknown) =>
  http(s.url, method, path, {
    token,
    headers: { "x-forwarded-for": CLIENT_IP },
    ...(body === undefined ? {} : { body }),
  });
const auditLog = async (query = "", token: string = D.acme.owner) => {
  const r = await call("GET", `/api/dashboard/audit-log${query}`, token);
  assertEquals(r.status, 200, r.text);
  return r.body as { data: Row[]; next_cursor: string | null; per_page: number };
};
/** Every row of the filter, page by page. */
const allRows = async (filter = "") => {
  const rows: Row[] = [];
  let cursor: string | null = null;
  do {
    const q: string = `?per_page=100${filter}${cursor ? `&cursor=${cursor}` : ""}`;
    const page = await auditLog(q);
    rows.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor);
  return rows;
};

const secrets: string[] = [PROVIDER_KEY, BILLING_KEY, CLI_BILLING_KEY, "receiver-query-secret-z80"];
let ownerId = 0;
let adminId = 0;
let apiTokenId = 0;
let webhookId = 0;
let sourceId = 0;

Deno.test("audit log", serverTestOptions, async (t) => {
  try {
    ownerId = (await call("GET", "/api/dashboard/me", D.acme.owner)).body.user.id;
    adminId = (await call("GET", "/api/dashboard/me", D.acme.administrator)).body.user.id;

    await t.step("each wired action, performed over HTTP", async () => {
      const token = await call("POST", "/api/dashboard/api-tokens", D.acme.owner, {
        name: "CRM sync",
      });
      assertEquals(token.status, 201, token.text);
      apiTokenId = token.body.data.id;
      secrets.push(token.body.token, token.body.token.split("|")[1]);
      const revoke = await call("DELETE", `/api/dashboard/api-tokens/${apiTokenId}`, D.acme.owner);
      assertEquals(revoke.status, 200, revoke.text);

      const put = await call("PUT", "/api/dashboard/keys/provider_2", D.acme.owner, {
        api_key: PROVIDER_KEY,
      });
      assertEquals(put.status, 200, put.text);
      const del = await call("DELETE", "/api/dashboard/keys/provider_2", D.acme.owner);
      assertEquals(del.status, 200, del.text);
      // Removing what is not there changes nothing and records nothing.
      assertEquals(
        (await call("DELETE", "/api/dashboard/keys/provider_2", D.acme.owner)).status,
        200,
      );

      const link = await call("PUT", "/api/dashboard/integrations/billing", D.acme.owner, {
        credential: BILLING_KEY,
      });
      assertEquals(link.status, 200, link.text);
      const unlink = await call("DELETE", "/api/dashboard/integrations/billing", D.acme.owner);
      assertEquals(unlink.status, 200, unlink.text);

      const hook = await call("POST", "/api/dashboard/webhooks", D.acme.owner, {
        url: HOOK_URL,
        events: ["conversation.created"],
      });
      assertEquals(hook.status, 201, hook.text);
      webhookId = hook.body.data.id;
      secrets.push(hook.body.data.secret);
      const patch = await call("PATCH", `/api/dashboard/webhooks/${webhookId}`, D.acme.owner, {
        enabled: false,
      });
      assertEquals(patch.status, 200, patch.text);
      const rotate = await call(
        "POST",
        `/api/dashboard/webhooks/${webhookId}/rotate-secret`,
        D.acme.owner,
        { overlap_hours: 0 },
      );
      assertEquals(rotate.status, 200, rotate.text);
      secrets.push(rotate.body.data.secret);
      const drop = await call("DELETE", `/api/dashboard/webhooks/${webhookId}`, D.acme.owner);
      assertEquals(drop.status, 200, drop.text);

      const csv = await call(
        "GET",
        "/api/dashboard/conversations/export?status=closed",
        D.acme.owner,
      );
      assertEquals(csv.status, 200, csv.text);

      const sources = await call(
        "GET",
        "/api/dashboard/chatbots/acme-helper/knowledge",
        D.acme.owner,
      );
      sourceId = sources.body.data[0].id;
      const delSource = await call(
        "DELETE",
        `/api/dashboard/chatbots/acme-helper/knowledge/${sourceId}`,
        D.acme.owner,
      );
      assertEquals(delSource.status, 200, delSource.text);

      // By the administrator, so the person filter has two people to tell apart.
      const delBot = await call(
        "DELETE",
        "/api/dashboard/chatbots/acme-sleeper",
        D.acme.administrator,
      );
      assertEquals(delBot.status, 200, delBot.text);
    });

    const expected: [string, string | null, string | null, number][] = [
      ["api_token.created", "api_token", null, 0],
      ["api_token.revoked", "api_token", null, 0],
      ["provider_key.set", "provider", "provider_2", 0],
      ["provider_key.removed", "provider", "provider_2", 0],
      ["integration.linked", "integration", "billing", 0],
      ["integration.unlinked", "integration", "billing", 0],
      ["webhook.created", "webhook", null, 0],
      ["webhook.changed", "webhook", null, 0],
      ["webhook.secret_rotated", "webhook", null, 0],
      ["webhook.deleted", "webhook", null, 0],
      ["conversations.exported", null, null, 0],
      ["knowledge.deleted", "knowledge_source", null, 0],
      ["bot.deleted", "chatbot", "acme-sleeper", 1],
    ];

    await t.step("exactly one row per action: actor, address, record", async () => {
      const rows = await allRows();
      assertEquals(rows.length, expected.length, JSON.stringify(rows.map((r) => r.action)));
      // Newest first: the reverse of the order performed.
      assertEquals(rows.map((r) => r.action), expected.map(([a]) => a).reverse());
      const ids: Record<string, string> = {
        api_token: String(apiTokenId),
        webhook: String(webhookId),
        knowledge_source: String(sourceId),
      };
      for (const [action, type, id, byAdmin] of expected) {
        const row = rows.find((r) => r.action === action)!;
        assertEquals(row.actor.user_id, byAdmin ? adminId : ownerId, action);
        assertOk(
          row.actor.label.includes(byAdmin ? "admin@acme.test" : "owner@acme.test"),
          row.actor.label,
        );
        assertOk(typeof row.actor.token_id === "number", `${action}: the token used`);
        assertEquals(row.ip, CLIENT_IP, action);
        assertEquals(row.target?.type ?? null, type, action);
        if (type) assertEquals(row.target!.id, id ?? ids[type], action);
      }
      const created = rows.find((r) => r.action === "webhook.created")!;
      assertEquals(created.details.host, "127.0.0.1:9");
      assertEquals(rows.find((r) => r.action === "webhook.changed")!.details.fields, ["enabled"]);
      assertEquals(rows.find((r) => r.action === "conversations.exported")!.details, {
        status: "closed",
      });
      assertEquals(rows.find((r) => r.action === "api_token.created")!.details, {
        name: "CRM sync",
      });
    });

    await t.step("filters: person, action, date range", async () => {
      const byAdmin = await allRows(`&person=${adminId}`);
      assertEquals(byAdmin.map((r) => r.action), ["bot.deleted"]);
      assertEquals((await allRows(`&person=${ownerId}`)).length, expected.length - 1);
      const rotated = await allRows("&action=webhook.secret_rotated");
      assertEquals(rotated.length, 1);
      assertEquals(rotated[0]!.details.overlap_hours, 0);
      const today = new Date().toISOString().slice(0, 10);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
      assertEquals((await allRows(`&from=${today}&to=${today}`)).length, expected.length);
      assertEquals((await allRows(`&to=${yesterday}`)).length, 0);
      assertEquals((await allRows(`&from=${tomorrow}`)).length, 0);
      const bad = await call("GET", "/api/dashboard/audit-log?action=root.shell", D.acme.owner);
      assertEquals(bad.status, 422, bad.text);
      assertOk(bad.body.errors.action, bad.text);
      const badDay = await call("GET", "/api/dashboard/audit-log?from=2026-02-30", D.acme.owner);
      assertEquals(badDay.status, 422, badDay.text);
      assertOk(badDay.body.errors.from, badDay.text);
    });

    await t.step("keyset pages, newest first, none lost or repeated", async () => {
      const all = await allRows();
      const seen: number[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await auditLog(`?per_page=5${cursor ? `&cursor=${cursor}` : ""}`);
        assertOk(page.data.length <= 5);
        seen.push(...page.data.map((r) => r.id));
        cursor = page.next_cursor;
        pages++;
      } while (cursor);
      assertEquals(pages, Math.ceil(expected.length / 5));
      assertEquals(seen, all.map((r) => r.id));
      const bad = await call(
        "GET",
        "/api/dashboard/audit-log?cursor=bm90LWEtY3Vyc29y",
        D.acme.owner,
      );
      assertEquals(bad.status, 422, bad.text);
      assertOk(bad.body.errors.cursor, bad.text);
    });

    await t.step("owners and administrators only; another workspace sees none", async () => {
      assertEquals((await auditLog("", D.acme.administrator)).data.length, expected.length);
      for (const token of [D.acme.agent, D.acme.viewer]) {
        assertEquals((await call("GET", "/api/dashboard/audit-log", token)).status, 403);
        assertEquals((await call("GET", "/api/dashboard/audit-log/export", token)).status, 403);
      }
      assertEquals((await call("GET", "/api/dashboard/audit-log", "nope")).status, 401);
      assertEquals((await auditLog("", D.globex.owner)).data, []);
      const theirs = await call("GET", "/api/dashboard/audit-log/export", D.globex.owner);
      assertEquals(theirs.text.trim().split("\r\n").length, 1, theirs.text);
    });

    await t.step("the CSV export holds the same rows, in the same order", async () => {
      const r = await call("GET", "/api/dashboard/audit-log/export", D.acme.owner);
      assertEquals(r.status, 200, r.text);
      assertOk(r.headers.get("content-type")!.startsWith("text/csv"));
      assertOk(/attachment; filename="audit-log-acme-/.test(r.headers.get("content-disposition")!));
      const lines = r.text.replace(/^\uFEFF/, "").trimEnd().split("\r\n");
      assertEquals(
        lines[0],
        "id,occurred_at,actor_user_id,actor_token_id,actor,ip,action,target_type,target_id,details",
      );
      const all = await allRows();
      assertEquals(lines.length - 1, all.length);
      assertEquals(lines.slice(1).map((l) => Number(l.split(",")[0])), all.map((x) => x.id));
      const filtered = await call(
        "GET",
        `/api/dashboard/audit-log/export?person=${adminId}`,
        D.acme.owner,
      );
      const rows = filtered.text.trimEnd().split("\r\n").slice(1);
      assertEquals(rows.length, 1);
      assertOk(rows[0]!.includes("bot.deleted") && rows[0]!.includes(CLIENT_IP), rows[0]);
      const bad = await call("GET", "/api/dashboard/audit-log/export?to=soon", D.acme.owner);
      assertEquals(bad.status, 422, bad.text);
    });

    await t.step("the admin CLI's link and unlink, by the operator", async () => {
      // The CLI opens the database itself: the embedded one only while no server holds it.
      await s.stop();
      const env = { ...s.env };
      const link = await cli([
        "integration:link",
        "--workspace",
        "acme",
        "--service",
        "billing",
        "--credential",
        CLI_BILLING_KEY,
      ], env);
      assertEquals(link.code, 0, link.err);
      const unlink = await cli(
        ["integration:unlink", "--workspace", "acme", "--service", "billing"],
        env,
      );
      assertEquals(unlink.code, 0, unlink.err);
      s = await startTestServer(serverOptions);
      const rows = (await auditLog("?action=integration.linked")).data;
      assertEquals(rows.length, 2);
      assertEquals(rows[0]!.actor, { user_id: null, label: "admin CLI", token_id: null });
      assertEquals(rows[0]!.ip, null);
      assertEquals(rows[0]!.target, { type: "integration", id: "billing" });
      assertEquals(
        (await auditLog("?action=integration.unlinked")).data[0]!.actor.label,
        "admin CLI",
      );
    });

    await t.step("no secret the test created is anywhere in the table", async () => {
      const dump = await s.deps.sql<{ row: string }[]>`SELECT a::text AS row FROM audit_log a`;
      assertOk(dump.length >= expected.length + 2);
      const text = dump.map((r) => r.row).join("\n");
      for (const secret of secrets) {
        assertOk(secret.length >= 8 && !text.includes(secret), `the audit log holds ${secret}`);
      }
    });

    await t.step("rows past the retention are pruned, once, with a row saying so", async () => {
      const before = (await allRows()).length;
      const realClock = s.deps.clock;
      // An action 400 days ago: its row is older than the 365 days kept.
      s.deps.clock = () => new Date(Date.now() - 400 * 86_400_000);
      let old: Awaited<ReturnType<typeof call>>;
      try {
        old = await call("POST", "/api/dashboard/api-tokens", D.acme.owner, { name: "old" });
      } finally {
        s.deps.clock = realClock;
      }
      assertEquals(old.status, 201, old.text);
      await waitUntil(
        async () => (await auditLog("?action=audit.pruned")).data.length > 0,
        "the retention sweep",
      );
      const pruned = (await auditLog("?action=audit.pruned")).data;
      assertEquals(pruned.length, 1);
      assertEquals(pruned[0]!.details.count, 1);
      assertEquals(pruned[0]!.details.retention_days, 365);
      assertEquals(pruned[0]!.actor, { user_id: null, label: "retention", token_id: null });
      // Several more sweeps find nothing old: no second record, nothing else gone.
      await new Promise((r) => setTimeout(r, 2500));
      const after = await allRows();
      assertEquals(after.filter((r) => r.action === "audit.pruned").length, 1);
      assertEquals(after.length, before + 1);
      assertOk(!after.some((r) => r.details.name === "old"));
    });
  } finally {
    await s.stop();
    await database?.drop();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
