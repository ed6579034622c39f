/**
 * The dashboard's conversation history over HTTP: every filter (bot, status,
 * agent, tag, date range, rating), full-text search over messages, keyset
 * pagination, the read-only transcript with notes and events, and the
 * streamed CSV export (escaping, the formula guard, the file name); 422
 * naming the field, another workspace's records 404 (or 422 in a filter),
 * and who may do what.
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream } from "../widget/widget_client.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";

const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: dashboardSeed(),
  env: { TRUSTED_PROXIES: "127.0.0.1", AI_BASE_URL: fake.baseUrl },
});
const owner = D.acme.owner;
const get = (path: string, token: string = owner) => http(s.url, "GET", path, { token });
const agentCall = (method: string, path: string, body?: unknown) =>
  http(s.url, method, path, { token: T.acme.agent.agent, ...(body ? { body } : {}) });

/** A widget conversation whose visitor says `message`; its public id. */
async function converse(key: string, visitor: string, message: string): Promise<string> {
  const res = await postStream(s.url, key, { visitor_id: visitor, message });
  const id = res.events[0]?.data.conversation_id as string | undefined;
  assert(id, `no conversation: ${res.text}`);
  return id;
}

/** Parses RFC 4180 text (quoted fields, doubled quotes, CRLF) into records. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') (cell += '"', i++);
      else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") (row.push(cell), cell = "");
    else if (ch === "\r" && text[i + 1] === "\n") {
      row.push(cell), rows.push(row), row = [], cell = "", i++;
    } else cell += ch;
  }
  assertEquals(cell + row.join(""), "", "the file ends with CRLF");
  return rows;
}

// The workspace's conversations, arranged through the real surfaces.
const zanzibar = await converse("acme-helper", "v_zan", "My parcel went to Zanzibar, not Zurich");
const refund = await converse(
  "acme-helper",
  "v_refund",
  '=HYPERLINK("http://evil.test") I said "refunds", then left',
);
const plain = await converse("acme-helper", "v_plain", "Do you ship to Iceland?");
const globexConversation = await converse("globex-bot", "v_globex", "Zanzibar secrets please");

const tags = await get("/api/dashboard/tags");
const billing =
  (tags.body.data as { id: number; name: string }[]).find((t) => t.name === "billing")!
    .id;
const globexTag = await get("/api/dashboard/tags", D.globex.owner);
const globexTagId = (globexTag.body.data as { id: number }[])[0]!.id;
const team = await get("/api/dashboard/team");
const amy = (team.body.members as { id: number; email: string }[])
  .find((m) => m.email === "agent@acme.test")!.id;

// Zanzibar: tagged, noted, resolved by Amy, rated 5, started 40 days ago.
assertEquals(
  (await agentCall("POST", `/api/agent/conversations/${zanzibar}/tags`, { tag_id: billing }))
    .status,
  200,
);
assertEquals(
  (await agentCall("POST", `/api/agent/conversations/${zanzibar}/reply`, {
    body: "<b>Sorry</b> about that!",
  })).status,
  200,
);
assertEquals(
  (await agentCall("POST", `/api/agent/conversations/${zanzibar}/notes`, {
    body: "Customer <script>alert(1)</script> is upset",
  })).status,
  200,
);
assertEquals(
  (await agentCall("POST", `/api/agent/conversations/${zanzibar}/resolve`)).status,
  200,
);
assertEquals(
  (await http(s.url, "POST", "/widget/acme-helper/rating", {
    body: { visitor_id: "v_zan", conversation_id: zanzibar, rating: 5, comment: "+1 great" },
  })).status,
  200,
);
await s.deps.sql`UPDATE conversations SET created_at = now() - interval '40 days'
                  WHERE public_id = ${zanzibar}`;
// Refund: with a human (Amy), still open.
assertEquals((await agentCall("POST", `/api/agent/conversations/${refund}/takeover`)).status, 200);

const day = (offsetDays: number) =>
  new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
const ids = (body: { data: { id: string }[] }) => body.data.map((c) => c.id);

Deno.test("dashboard conversation history", serverTestOptions, async (t) => {
  try {
    await t.step(
      "lists the workspace's conversations, newest started first, no others",
      async () => {
        const res = await get("/api/dashboard/conversations");
        assertEquals(res.status, 200);
        assertEquals(ids(res.body), [plain, refund, zanzibar]);
        assertEquals(res.body.next_cursor, null);
        const z = res.body.data[2];
        assertEquals(z.bot, { key: "acme-helper", name: "Acme Helper" });
        assertEquals(z.status, "closed");
        assertEquals(z.resolution, "resolved");
        assertEquals(z.rating, 5);
        assertEquals(z.assigned_to?.id, amy);
        assertEquals(z.tags.map((x: { name: string }) => x.name), ["billing"]);
        assertEquals(z.messages, 3);
        const globex = await get("/api/dashboard/conversations", D.globex.owner);
        assertEquals(ids(globex.body), [globexConversation]);
      },
    );

    await t.step("each filter narrows the list", async () => {
      const cases: [string, string[]][] = [
        ["status=closed", [zanzibar]],
        ["status=agent", [refund]],
        ["status=bot", [plain]],
        ["bot=acme-helper", [plain, refund, zanzibar]],
        ["bot=acme-sleeper", []],
        [`tag=${billing}`, [zanzibar]],
        [`agent=${amy}`, [refund, zanzibar]],
        ["agent=none", [plain]],
        ["rating=5", [zanzibar]],
        ["rating=4", []],
        ["rating=rated", [zanzibar]],
        ["rating=unrated", [plain, refund]],
        [`from=${day(-41)}&to=${day(-39)}`, [zanzibar]],
        [`from=${day(-1)}`, [plain, refund]],
        [`to=${day(-30)}`, [zanzibar]],
        [`status=closed&agent=${amy}&tag=${billing}&rating=5`, [zanzibar]],
        [`status=agent&tag=${billing}`, []],
      ];
      for (const [query, want] of cases) {
        const res = await get(`/api/dashboard/conversations?${query}`);
        assertEquals(res.status, 200, `${query}: ${res.text}`);
        assertEquals(ids(res.body), want, query);
      }
    });

    await t.step("full-text search over messages: every word somewhere, as a prefix", async () => {
      const cases: [string, string[]][] = [
        ["zanzibar", [zanzibar]],
        ["ZANZI", [zanzibar]],
        ["refund", [refund]],
        ["parcel zurich", [zanzibar]],
        ["parcel iceland", []], // two conversations, neither with both
        ["sorry zanzibar", [zanzibar]], // the agent said one, the visitor the other
        ["sorry", [zanzibar]], // the agent's reply is searched too
        ["happy", [plain, refund, zanzibar]], // and the AI's
        ["ship", [plain]],
        ["secrets", []], // globex's words stay in globex
        ['"Zanzibar" & (not) !zurich:*', [zanzibar]], // tsquery syntax is only words here
      ];
      for (const [q, want] of cases) {
        const res = await get(`/api/dashboard/conversations?q=${encodeURIComponent(q)}`);
        assertEquals(res.status, 200, `${q}: ${res.text}`);
        assertEquals(ids(res.body), want, q);
      }
      const hit = await get("/api/dashboard/conversations?q=zurich&status=closed");
      assertEquals(ids(hit.body), [zanzibar]);
      assert((hit.body.data[0].preview as string).includes("Zurich"), "the matching message");
    });

    await t.step("keyset pagination walks every row once, in order", async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : "";
        const res = await get(`/api/dashboard/conversations?per_page=1${q}`);
        assertEquals(res.status, 200, res.text);
        assertEquals(res.body.data.length, 1);
        seen.push(...ids(res.body));
        cursor = res.body.next_cursor;
        pages++;
      } while (cursor && pages < 10);
      assertEquals(seen, [plain, refund, zanzibar]);
      // A new conversation does not shift the pages already walked.
      const first = await get("/api/dashboard/conversations?per_page=2");
      await converse("acme-helper", "v_late", "Late arrival");
      const next = await get(
        `/api/dashboard/conversations?per_page=2&cursor=${first.body.next_cursor}`,
      );
      assertEquals(ids(next.body), [zanzibar]);
      await s.deps.sql`DELETE FROM conversations WHERE visitor_id = 'v_late'`;
    });

    await t.step("a bad filter is 422 naming the field", async () => {
      const cases: [string, string][] = [
        ["status=open", "status"],
        ["from=2026-02-30", "from"],
        ["from=yesterday", "from"],
        [`from=${day(0)}&to=${day(-1)}`, "to"],
        ["bot=globex-bot", "bot"],
        ["bot=no-such-bot", "bot"],
        [`tag=${globexTagId}`, "tag"],
        ["tag=abc", "tag"],
        ["agent=abc", "agent"],
        ["agent=999999", "agent"],
        ["rating=6", "rating"],
        ["q=%21%21%21", "q"],
        [`q=${"a".repeat(201)}`, "q"],
        ["cursor=not-a-cursor", "cursor"],
        ["per_page=1000", "per_page"],
      ];
      for (const [query, field] of cases) {
        const res = await get(`/api/dashboard/conversations?${query}`);
        assertEquals(res.status, 422, `${query}: ${res.text}`);
        assert(res.body.errors?.[field], `${query}: ${res.text}`);
        // The export shares the filter (a few cases: it is limited to 10 a minute).
        if (!["status", "from", "bot", "q"].includes(field) || query.startsWith("q=a")) continue;
        const csv = await get(`/api/dashboard/conversations/export?${query}`);
        assertEquals(csv.status, 422, `export ${query}: ${csv.text}`);
        assert(csv.body.errors?.[field], `export ${query}: ${csv.text}`);
      }
    });

    await t.step("the transcript: messages, notes and events, read-only text", async () => {
      const res = await get(`/api/dashboard/conversations/${zanzibar}`);
      assertEquals(res.status, 200, res.text);
      const c = res.body.data;
      assertEquals(c.messages.map((m: { role: string }) => m.role), [
        "visitor",
        "assistant",
        "agent",
      ]);
      assertEquals(c.messages[2].content, "<b>Sorry</b> about that!");
      assertEquals(c.notes.map((n: { body: string }) => n.body), [
        "Customer <script>alert(1)</script> is upset",
      ]);
      assertEquals(c.notes[0].author, "Amy Agent");
      assert(c.events.length >= 2, JSON.stringify(c.events));
      assertEquals(c.rating, 5);
      assertEquals(c.rating_comment, "+1 great");
      assertEquals(c.messages_total, 3);
    });

    await t.step("another workspace's conversation is 404, as is a missing one", async () => {
      const cases = [
        [`/api/dashboard/conversations/${globexConversation}`, owner],
        [`/api/dashboard/conversations/${zanzibar}`, D.globex.owner],
        ["/api/dashboard/conversations/6a3f5a4e-1111-4111-8111-111111111111", owner],
        ["/api/dashboard/conversations/not-a-uuid", owner],
      ] as const;
      for (const [path, token] of cases) {
        const res = await get(path, token);
        assertEquals(res.status, 404, `${path}: ${res.text}`);
        assertEquals(res.body, { message: "Conversation not found." });
      }
    });

    await t.step("who may read and who may export", async () => {
      for (const token of [owner, D.acme.administrator, D.acme.viewer]) {
        assertEquals((await get("/api/dashboard/conversations", token)).status, 200);
        assertEquals((await get(`/api/dashboard/conversations/${plain}`, token)).status, 200);
      }
      for (const path of ["/api/dashboard/conversations", "/api/dashboard/conversations/export"]) {
        assertEquals((await get(path, D.acme.agent)).status, 403, path);
        assertEquals((await http(s.url, "GET", path)).status, 401, path);
        assertEquals((await get(path, T.acme.owner.api)).status, 403, `${path} api token`);
      }
      const viewer = await get("/api/dashboard/conversations/export", D.acme.viewer);
      assertEquals(viewer.status, 403);
      assertEquals(
        viewer.body.message,
        "Exporting conversations is for owners and administrators.",
      );
      const admin = await get("/api/dashboard/conversations/export", D.acme.administrator);
      assertEquals(admin.status, 200);
    });

    await t.step("the CSV export: the filtered rows, escaped, guarded, named", async () => {
      const res = await fetch(`${s.url}/api/dashboard/conversations/export`, {
        headers: { authorization: `Bearer ${owner}` },
      });
      assertEquals(res.status, 200);
      assertEquals(res.headers.get("content-type"), "text/csv; charset=utf-8");
      const disposition = res.headers.get("content-disposition") ?? "";
      assert(
        new RegExp(`^attachment; filename="conversations-acme-${day(0)}\\.csv"`).test(disposition),
        disposition,
      );
      const bytes = new Uint8Array(await res.arrayBuffer());
      assertEquals([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "a UTF-8 byte-order mark");
      const text = new TextDecoder().decode(bytes); // drops the mark
      const rows = parseCsv(text);
      const header = rows[0]!;
      assertEquals(header.slice(0, 4), ["conversation_id", "bot", "bot_key", "status"]);
      const col = (name: string) => header.indexOf(name);
      assertEquals(rows.slice(1).map((r) => r[col("conversation_id")]), [plain, refund, zanzibar]);
      const byId = new Map(rows.slice(1).map((r) => [r[0], r]));
      // A visitor's formula arrives as text; quotes and commas survive quoting.
      assertEquals(
        byId.get(refund)![col("first_visitor_message")],
        `'=HYPERLINK("http://evil.test") I said "refunds", then left`,
      );
      assertEquals(byId.get(zanzibar)![col("rating_comment")], "'+1 great");
      assertEquals(byId.get(zanzibar)![col("rating")], "5");
      assertEquals(byId.get(zanzibar)![col("tags")], "billing");
      assertEquals(byId.get(zanzibar)![col("assigned_to")], "Amy Agent");
      assertEquals(byId.get(zanzibar)![col("messages")], "3");
      assert(text.includes('"=HYPERLINK') === false, "no cell starts with a formula");

      const filtered = await fetch(
        `${s.url}/api/dashboard/conversations/export?q=zanzibar&status=closed`,
        { headers: { authorization: `Bearer ${owner}` } },
      );
      const filteredRows = parseCsv(await filtered.text());
      assertEquals(filteredRows.slice(1).map((r) => r[0]), [zanzibar]);
      const none = await fetch(`${s.url}/api/dashboard/conversations/export?rating=1`, {
        headers: { authorization: `Bearer ${owner}` },
      });
      assertEquals(parseCsv(await none.text()).length, 1, "the header alone");
    });

    await t.step("a word in thousands of messages is found the other way, alike", async () => {
      // At 5,000 matching messages the list walks the newest conversations
      // instead of listing matches from the index first (docs/dashboard.md).
      await s.deps.sql`
        INSERT INTO messages (workspace_id, conversation_id, role, content)
        SELECT c.workspace_id, c.id, 'visitor', 'filler line ' || i
          FROM conversations c, generate_series(1, 5000) AS i WHERE c.public_id = ${plain}`;
      try {
        const cases: [string, string[]][] = [
          ["q=filler", [plain]],
          ["q=filler%20iceland", [plain]],
          ["q=filler%20zanzibar", []],
          ["q=filler&status=closed", []],
          ["q=filler&per_page=1", [plain]],
        ];
        for (const [query, want] of cases) {
          const res = await get(`/api/dashboard/conversations?${query}`);
          assertEquals(res.status, 200, `${query}: ${res.text}`);
          assertEquals(ids(res.body), want, query);
        }
      } finally {
        await s.deps.sql`DELETE FROM messages WHERE content LIKE 'filler line %'`;
      }
    });

    await t.step("the export is described in the OpenAPI document", async () => {
      const doc = await http(s.url, "GET", "/api/openapi.json");
      const op = doc.body.paths["/api/dashboard/conversations/export"]?.get;
      assert(op, "export operation");
      assert(doc.body.paths["/api/dashboard/conversations"]?.get, "list operation");
      assert(doc.body.paths["/api/dashboard/conversations/{conversation}"]?.get, "show");
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
