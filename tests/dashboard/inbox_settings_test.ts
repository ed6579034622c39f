/**
 * The dashboard's inbox settings and API tokens over HTTP: tags (create,
 * rename, recolour, delete, and what conversations carrying one see), shared
 * canned replies, and the settings-token panel (shown once, listed with its
 * state, revoked at once, 20 active per account); each role, 422 naming the
 * field, another workspace's records 404.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream } from "../widget/widget_client.ts";
import { D, dashboardSeed, ROLES } from "./dashboard_seed.ts";

const fake = startFakeAi({ reply: "Hello back." });
const s = await startTestServer({
  seed: dashboardSeed(),
  env: { TRUSTED_PROXIES: "127.0.0.1", AI_BASE_URL: fake.baseUrl },
});
const owner = D.acme.owner;
const call = (method: string, path: string, token: string, body?: unknown) =>
  http(s.url, method, path, { token, ...(body === undefined ? {} : { body }) });

Deno.test("dashboard inbox settings and API tokens", serverTestOptions, async (t) => {
  try {
    await t.step(
      "tags: created, renamed, recoloured and deleted, as conversations carrying one see",
      async () => {
        const created = await call("POST", "/api/dashboard/tags", owner, {
          name: "Refunds",
          color: "#ef4444",
        });
        assertEquals(created.status, 201);
        const id = created.body.data.id as number;
        const conv = await postStream(s.url, "acme-helper", {
          visitor_id: "v_tags",
          message: "Hi",
        });
        const conversation = conv.events[0]!.data.conversation_id as string;
        const attach = await http(s.url, "POST", `/api/agent/conversations/${conversation}/tags`, {
          token: T.acme.agent.agent,
          body: { tag_id: id },
        });
        assertEquals(attach.status, 200);
        const renamed = await call("PATCH", `/api/dashboard/tags/${id}`, owner, {
          name: "Refund requests",
          color: "#22c55e",
        });
        assertEquals(renamed.status, 200);
        assertEquals(renamed.body.data, { id, name: "Refund requests", color: "#22c55e" });
        const open = await http(s.url, "GET", `/api/agent/conversations/${conversation}`, {
          token: T.acme.agent.agent,
        });
        const onConversation = (open.body.active.tags as { id: number; name: string }[])
          .find((x) => x.id === id);
        assertEquals(onConversation?.name, "Refund requests");
        const list = await call("GET", "/api/dashboard/tags", owner);
        const listed = (list.body.data as { id: number; conversations: number }[])
          .find((x) => x.id === id);
        assertEquals(listed?.conversations, 1);

        // Deleting it detaches it from the conversation.
        {
          assertEquals((await call("DELETE", `/api/dashboard/tags/${id}`, owner)).status, 200);
          const after = await http(s.url, "GET", `/api/agent/conversations/${conversation}`, {
            token: T.acme.agent.agent,
          });
          assertEquals(
            (after.body.active.tags as { id: number }[]).some((x) => x.id === id),
            false,
          );
          assertEquals((await call("DELETE", `/api/dashboard/tags/${id}`, owner)).status, 404);
        }
      },
    );

    await t.step("tags: a name in use and a bad colour are 422 naming the field", async () => {
      await call("POST", "/api/dashboard/tags", owner, { name: "Urgent twice" });
      const dup = await call("POST", "/api/dashboard/tags", owner, { name: "Urgent twice" });
      assertEquals(dup.status, 422);
      assertOk(dup.body.errors.name);
      const bad = await call("POST", "/api/dashboard/tags", owner, { name: "X", color: "red" });
      assertEquals(bad.status, 422);
      assertOk(bad.body.errors.color);
      const other = await call("POST", "/api/dashboard/tags", owner, { name: "Other" });
      const clash = await call("PATCH", `/api/dashboard/tags/${other.body.data.id}`, owner, {
        name: "Urgent twice",
      });
      assertEquals(clash.status, 422);
      assertOk(clash.body.errors.name);
    });

    await t.step("shared canned replies: created, edited, seen by agents, deleted", async () => {
      const created = await call("POST", "/api/dashboard/canned", owner, {
        title: "Refund window",
        shortcut: "refund",
        body: "Refunds reach your card within 5 working days.",
      });
      assertEquals(created.status, 201);
      assertEquals(created.body.data.shortcut, "/refund"); // stored as the composer matches it
      const id = created.body.data.id as number;
      const edited = await call("PUT", `/api/dashboard/canned/${id}`, owner, {
        title: "Refund window",
        shortcut: "refund",
        body: "Refunds reach your card within 3 working days.",
      });
      assertEquals(edited.status, 200);
      const agentList = await http(s.url, "GET", "/api/agent/canned", {
        token: T.acme.agent.agent,
      });
      const seen = (agentList.body.canned as { id: number; body: string }[])
        .find((c) => c.id === id);
      assertEquals(seen?.body, "Refunds reach your card within 3 working days.");
      const dup = await call("POST", "/api/dashboard/canned", owner, {
        title: "Refund window",
        body: "Again",
      });
      assertEquals(dup.status, 422);
      assertOk(dup.body.errors.title);
      const blank = await call("POST", "/api/dashboard/canned", owner, { title: "T", body: "  " });
      assertEquals(blank.status, 422);
      assertOk(blank.body.errors.body);
      assertEquals((await call("DELETE", `/api/dashboard/canned/${id}`, owner)).status, 200);
      const gone = await http(s.url, "GET", "/api/agent/canned", { token: T.acme.agent.agent });
      assertEquals((gone.body.canned as { id: number }[]).some((c) => c.id === id), false);
    });

    await t.step("API tokens: shown once, work on /api/v1, revoked at once", async () => {
      const created = await call("POST", "/api/dashboard/api-tokens", owner, { name: "CRM sync" });
      assertEquals(created.status, 201);
      const plain = created.body.token as string;
      assertEquals(created.body.data.state, "active");
      assertEquals((await http(s.url, "GET", "/api/v1/me", { token: plain })).status, 200);
      const list = await call("GET", "/api/dashboard/api-tokens", owner);
      const row = (list.body.data as Record<string, unknown>[])
        .find((x) => x.id === created.body.data.id)!;
      assertEquals(row.name, "CRM sync");
      assertOk(typeof row.last_used_at === "string", "last used after the call");
      assertOk(!JSON.stringify(list.body).includes(plain.split("|")[1]!), "never shown again");
      const revoked = await call("DELETE", `/api/dashboard/api-tokens/${row.id}`, owner);
      assertEquals(revoked.status, 200);
      assertEquals((await http(s.url, "GET", "/api/v1/me", { token: plain })).status, 401);
      const after = await call("GET", "/api/dashboard/api-tokens", owner);
      assertEquals(
        (after.body.data as { id: unknown; state: string }[]).find((x) => x.id === row.id)?.state,
        "revoked",
      );
    });

    await t.step("API tokens: the 21st active one is 422 on name", async () => {
      const admin = D.acme.administrator;
      const existing = (await call("GET", "/api/dashboard/api-tokens", admin)).body.data as {
        state: string;
      }[];
      const active = existing.filter((x) => x.state === "active").length;
      for (let i = active; i < 20; i++) {
        assertEquals(
          (await call("POST", "/api/dashboard/api-tokens", admin, { name: `t${i}` })).status,
          201,
        );
      }
      const over = await call("POST", "/api/dashboard/api-tokens", admin, { name: "one too many" });
      assertEquals(over.status, 422);
      assertOk(over.body.errors.name);
    });

    await t.step(
      "each role: viewers read, agents are refused, changes need manage-workspace",
      async () => {
        for (const [role, token] of ROLES) {
          const list = await call("GET", "/api/dashboard/tags", token);
          assertEquals(list.status, role === "agent" ? 403 : 200, `${role} lists tags`);
          const create = await call("POST", "/api/dashboard/tags", token, { name: `by ${role}` });
          const may = role === "owner" || role === "administrator";
          assertEquals(create.status, may ? 201 : 403, `${role} creates a tag`);
          const tokens = await call("GET", "/api/dashboard/api-tokens", token);
          assertEquals(tokens.status, may ? 200 : 403, `${role} lists API tokens`);
        }
      },
    );

    await t.step("another workspace's tags, replies and tokens are 404", async () => {
      const tag = await call("POST", "/api/dashboard/tags", owner, { name: "Acme only" });
      const reply = await call("POST", "/api/dashboard/canned", owner, {
        title: "Acme",
        body: "a",
      });
      const token = await call("POST", "/api/dashboard/api-tokens", owner, { name: "acme" });
      const globex = D.globex.owner;
      assertEquals(
        (await call("PATCH", `/api/dashboard/tags/${tag.body.data.id}`, globex, { name: "x" }))
          .status,
        404,
      );
      assertEquals(
        (await call("DELETE", `/api/dashboard/tags/${tag.body.data.id}`, globex)).status,
        404,
      );
      assertEquals(
        (await call("PUT", `/api/dashboard/canned/${reply.body.data.id}`, globex, {
          title: "x",
          body: "y",
        })).status,
        404,
      );
      assertEquals(
        (await call("DELETE", `/api/dashboard/api-tokens/${token.body.data.id}`, globex)).status,
        404,
      );
      const globexTags = (await call("GET", "/api/dashboard/tags", globex)).body.data as {
        name: string;
      }[];
      assertEquals(globexTags.some((x) => x.name === "Acme only"), false);
      // Still working for its own account: revocation by another account did nothing.
      assertEquals(
        (await http(s.url, "GET", "/api/v1/me", { token: token.body.token })).status,
        200,
      );
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
