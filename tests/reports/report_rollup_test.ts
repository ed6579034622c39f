/**
 * The report's message counts stay exact whatever the rollup job has done
 * (docs/reports.md "How figures stay exact"): the same report before the job
 * ran, after it caught up in small rounds, with messages written above its
 * watermark, and after an erasure removed rolled-up messages; every figure
 * also equal to a fresh count of the messages. The job is off in this server
 * (REPORT_ROLLUP_SECONDS=0): the test runs its rounds itself.
 */
import { assertEquals, assertOk as assert } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { T } from "../helpers/fixtures.ts";
import { postStream } from "../widget/widget_client.ts";
import { rollUpMessages } from "../../domain/reports/roll_up_messages.ts";
import { buildHistory } from "./report_history.ts";

const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: dashboardSeed(),
  env: { TRUSTED_PROXIES: "127.0.0.1", AI_BASE_URL: fake.baseUrl, REPORT_ROLLUP_SECONDS: "0" },
});
const history = await buildHistory(s);
const NY = "from=2026-01-31&to=2026-02-01&time_zone=America/New_York";
const SINCE = "2026-01-31T05:00:00Z";
const UNTIL = "2026-02-02T05:00:00Z";

const report = async (query: string) => {
  const res = await http(s.url, "GET", `/api/dashboard/reports?${query}`, { token: D.acme.owner });
  assertEquals(res.status, 200, JSON.stringify(res.body));
  return res.body;
};
const csv = async (table: string) => {
  const res = await fetch(`${s.url}/api/dashboard/reports/export?${NY}&table=${table}`, {
    headers: { authorization: `Bearer ${D.acme.owner}` },
  });
  assertEquals(res.status, 200);
  return await res.text();
};
/** Everything the report shows that messages feed: API figures, series, heat map, bots' CSV. */
const snapshot = async () => {
  const r = await report(NY);
  const utc = await report("from=2026-01-31&to=2026-02-01");
  return { ny: r, utc, bots: await csv("bots"), ...await scoped() };
};
/** The same report by each agent and each tag (their rollup rows, migration 0300). */
const scoped = async () => ({
  amy: await report(`${NY}&agent=${history.amy}`),
  abe: await report(`${NY}&agent=${history.abe}`),
  billing: await report(`${NY}&tag=${history.billing}`),
  urgent: await report(`${NY}&tag=${history.urgent}`),
});
const sql = s.deps.sql;
const workspace = async () =>
  (await sql<{ id: number }[]>`SELECT id::int FROM workspaces WHERE slug = 'acme'`)[0]!.id;

/** The period's messages by role, counted from the rows themselves (of one agent's or tag's). */
const freshCounts = async (scope?: { agent?: number; tag?: number }) => {
  const agent = scope?.agent === undefined ? sql`` : sql`AND c.assigned_user_id = ${scope.agent}`;
  const tag = scope?.tag === undefined ? sql`` : sql`AND EXISTS (SELECT 1 FROM conversation_tags ct
    WHERE ct.conversation_id = c.id AND ct.tag_id = ${scope.tag})`;
  const rows = await sql<{ role: string; n: number }[]>`
    SELECT m.role, count(*)::int AS n FROM messages m JOIN conversations c ON c.id = m.conversation_id
     WHERE m.workspace_id = ${await workspace()} ${agent} ${tag}
       AND m.created_at >= ${SINCE}::timestamptz AND m.created_at < ${UNTIL}::timestamptz
     GROUP BY m.role`;
  const of = (role: string) => rows.find((r) => r.role === role)?.n ?? 0;
  return [of("visitor"), of("assistant"), of("agent")];
};
const figures = (r: { figures: Record<string, number> }) => [
  r.figures.visitor_messages,
  r.figures.ai_replies,
  r.figures.human_replies,
];
const state = async () =>
  (await sql<{ watermark: number; rolled: number }[]>`
    SELECT watermark::int,
           (SELECT COALESCE(sum(n), 0)::int FROM report_message_quarters) AS rolled
      FROM report_rollup_state`)[0]!;
const lastMessageId = async () =>
  (await sql<{ id: number }[]>`SELECT COALESCE(max(id), 0)::int AS id FROM messages`)[0]!.id;

/** The job's rounds until caught up; small rounds, so the backfill takes several. */
const rollUp = async () => {
  let rounds = 0;
  for (let i = 0; i < 20; i++) {
    const p = await rollUpMessages(sql, {
      alone: s.deps.db.embedded,
      idsPerRound: 4,
      maxRounds: 50,
    });
    rounds += p.rounds;
    if (p.caughtUp) return rounds;
  }
  throw new Error("the rollup did not catch up");
};

const converse = async (visitor: string, iso: string, conversation?: string) => {
  s.deps.clock = () => new Date(iso);
  const res = await postStream(s.url, "acme-helper", {
    visitor_id: visitor,
    message: "Hi",
    ...(conversation ? { conversation_id: conversation } : {}),
  });
  const id = res.events[0]?.data.conversation_id as string | undefined;
  assert(id, `no conversation: ${res.text}`);
  s.deps.clock = () => new Date("2026-02-03T12:00:00Z");
  return id;
};

Deno.test("report counts stay exact with the rollup", serverTestOptions, async (t) => {
  try {
    const before = await snapshot();

    await t.step("before the job: nothing rolled up, every message counted", async () => {
      assertEquals(await state(), { watermark: 0, rolled: 0 });
      assertEquals(figures(before.ny), [5, 5, 2]);
      assertEquals(figures(before.ny), await freshCounts());
    });

    await t.step("the job catches up in bounded rounds; the report is unchanged", async () => {
      const rounds = await rollUp();
      assert(rounds >= 3, `a backfill of 4 ids a round took ${rounds} rounds`);
      const st = await state();
      assert(st.watermark >= await lastMessageId(), "every message is below the watermark");
      assertEquals(
        st.rolled,
        (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM messages`)[0]!.n,
      );
      assertEquals(await snapshot(), before);
    });

    await t.step(
      "reassigned, tagged and untagged after the rollup: each agent's and tag's report follows",
      async () => {
        const rolled = await scoped();
        // B (Amy's, tagged billing; all its messages rolled up) goes to Abe and is tagged urgent;
        // C (Abe's, tagged urgent) loses its tag.
        const [b] = await sql<{ public_id: string }[]>`
          SELECT public_id::text FROM conversations WHERE visitor_id = 'v_b'`;
        const [c] = await sql<{ public_id: string }[]>`
          SELECT public_id::text FROM conversations WHERE visitor_id = 'v_c'`;
        const abe = (method: string, path: string, body?: unknown) =>
          http(s.url, method, path, {
            token: T.acme.administrator.agent,
            ...(body ? { body } : {}),
          });
        for (
          const res of [
            await abe("POST", `/api/agent/conversations/${b!.public_id}/assign`, {
              user_id: history.abe,
            }),
            await abe("POST", `/api/agent/conversations/${b!.public_id}/tags`, {
              tag_id: history.urgent,
            }),
            await abe(
              "DELETE",
              `/api/agent/conversations/${c!.public_id}/tags/${history.urgent}`,
            ),
          ]
        ) assertEquals(res.status, 200, JSON.stringify(res.body));
        const moved = await scoped();
        for (
          const [name, scope] of [
            ["amy", { agent: history.amy }],
            ["abe", { agent: history.abe }],
            ["billing", { tag: history.billing }],
            ["urgent", { tag: history.urgent }],
          ] as const
        ) {
          assertEquals(figures(moved[name]), await freshCounts(scope), name);
        }
        // B's visitor message, AI reply and Amy's reply left Amy for Abe.
        assertEquals(figures(rolled.amy), [1, 1, 1]);
        assertEquals(figures(moved.amy), [0, 0, 0]);
        assertEquals(figures(moved.abe), [
          figures(rolled.abe)[0]! + 1,
          figures(rolled.abe)[1]! + 1,
          2,
        ]);
        assertEquals(figures(moved.billing), figures(rolled.billing));
        // C is no longer urgent (31 January, out of the New York period's second day), B is.
        assertEquals(moved.urgent.series.visitor_messages, [0, 1]);
        // The same after the job has rolled everything up again, and a fresh report agrees.
        await rollUp();
        assertEquals(await scoped(), moved);
      },
    );

    await t.step(
      "messages above the watermark count at once, and the same after the job",
      async () => {
        // G: 1 February 21:00 UTC (16:00 in New York): a visitor message and an AI reply.
        await converse("v_g", "2026-02-01T21:00:00Z");
        const tail = await report(NY);
        assertEquals(figures(tail), [6, 6, 2]);
        assertEquals(tail.figures.conversations, 6);
        assertEquals(figures(tail), await freshCounts());
        assert((await state()).watermark < await lastMessageId(), "G is above the watermark");
        await rollUp();
        assertEquals(await report(NY), tail);
      },
    );

    await t.step("an erasure takes rolled-up messages away, exactly", async () => {
      // C (31 January): the visitor's message, the AI's reply and Abe's, all rolled up.
      const [c] = await sql<{ public_id: string }[]>`
        SELECT public_id::text FROM conversations WHERE visitor_id = 'v_c'`;
      const erased = await http(
        s.url,
        "POST",
        `/api/dashboard/conversations/${c!.public_id}/erase`,
        { token: D.acme.owner },
      );
      assertEquals(erased.status, 200, JSON.stringify(erased.body));
      const after = await report(NY);
      assertEquals(figures(after), [5, 5, 1]);
      assertEquals(figures(after), await freshCounts());
      assertEquals(after.series.human_replies, [0, 1]);
      assertEquals(after.series.visitor_messages, [1, 4]);
      // Erasing one that is partly above the watermark: a new message in G, then G erased.
      const g = await converse("v_g2", "2026-02-01T22:00:00Z");
      await rollUp();
      assertEquals(await converse("v_g2", "2026-02-01T22:05:00Z", g), g);
      const withG2 = await report(NY);
      assertEquals(figures(withG2), [7, 7, 1]);
      const erasedG = await http(s.url, "POST", `/api/dashboard/conversations/${g}/erase`, {
        token: D.acme.owner,
      });
      assertEquals(erasedG.status, 200, JSON.stringify(erasedG.body));
      const final = await report(NY);
      assertEquals(figures(final), [5, 5, 1]);
      assertEquals(figures(final), await freshCounts());
      await rollUp();
      assertEquals(await report(NY), final);
      // Each agent's and tag's report lost the erased conversations' messages too.
      const scopedAfter = await scoped();
      assertEquals(figures(scopedAfter.abe), await freshCounts({ agent: history.abe }));
      assertEquals(figures(scopedAfter.urgent), await freshCounts({ tag: history.urgent }));
      // Against a report whose counts all come from the rows: the same numbers.
      assertEquals(
        (await state()).rolled,
        (await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM messages`)[0]!.n,
      );
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
