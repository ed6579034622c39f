/**
 * The report's figures through the dashboard's API over a known history
 * (report_history.ts): each figure's exact value in New York time and in UTC,
 * the previous period, the series, the busiest hours, the per agent, bot and
 * tag tables, the filters; 422 naming the field; another workspace sees none
 * of it.
 */
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { buildHistory } from "./report_history.ts";

const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: dashboardSeed(),
  env: { TRUSTED_PROXIES: "127.0.0.1", AI_BASE_URL: fake.baseUrl },
});
const h = await buildHistory(s);
const NY = "from=2026-01-31&to=2026-02-01&time_zone=America/New_York";
const report = async (query: string, token: string = D.acme.owner) => {
  const res = await http(s.url, "GET", `/api/dashboard/reports?${query}`, { token });
  assertEquals(res.status, 200, JSON.stringify(res.body));
  return res.body;
};

Deno.test("reports over a known history", serverTestOptions, async (t) => {
  try {
    await t.step("each headline figure, counted in New York days", async () => {
      const r = await report(NY);
      assertEquals(r.period, {
        from: "2026-01-31",
        to: "2026-02-01",
        since: "2026-01-31T05:00:00.000Z",
        until: "2026-02-02T05:00:00.000Z",
        time_zone: "America/New_York",
        granularity: "day",
      });
      const f = r.figures;
      assertEquals(f.conversations, 5);
      assertEquals(
        [f.visitor_messages, f.ai_replies, f.human_replies],
        [5, 5, 2],
      );
      assertEquals([f.resolved, f.resolved_by_ai, f.ai_resolution_rate], [4, 2, 0.5]);
      assertEquals([f.handoffs, f.handoff_rate], [3, 0.6]);
      assertEquals(f.first_response, {
        requests: 3,
        answered: 2,
        median_seconds: 600,
        p90_seconds: 840,
      });
      assertEquals(f.resolution_time, { median_seconds: 1200, p90_seconds: 3060 });
      assertEquals(f.ratings, {
        count: 2,
        distribution: [0, 1, 0, 0, 1],
        good: 1,
        good_share: 0.5,
        rating_rate: 0.6667,
      });
      assertEquals(f.recommendations, { shown: 0, clicked: 0 });
      assertEquals(f.suggestions, { suggested: 0, accepted: 0 });
    });

    await t.step("the previous period of the same length, and the same days in UTC", async () => {
      const r = await report(NY);
      assertEquals(r.previous_period.from, "2026-01-29");
      assertEquals(r.previous_period.to, "2026-01-30");
      assertEquals(r.previous.conversations, 1);
      assertEquals([r.previous.resolved, r.previous.resolved_by_ai], [1, 1]);
      const utc = await report("from=2026-01-31&to=2026-02-01");
      assertEquals(utc.figures.conversations, 6);
      assertEquals([utc.figures.resolved, utc.figures.resolved_by_ai], [5, 3]);
    });

    await t.step("series per local day and the busiest hours", async () => {
      const r = await report(NY);
      assertEquals(r.series.buckets, ["2026-01-31", "2026-02-01"]);
      assertEquals(r.series.conversations, [2, 3]);
      assertEquals(r.series.visitor_messages, [2, 3]);
      assertEquals(r.series.human_replies, [1, 1]);
      assertEquals(r.series.resolved_by_ai, [1, 1]);
      assertEquals(r.series.resolved_by_human, [1, 1]);
      const utc = await report("from=2026-01-31&to=2026-02-01");
      assertEquals(utc.series.conversations, [2, 4]);
      const cells: string[] = [];
      r.busiest_hours.forEach((row: number[], day: number) =>
        row.forEach((n, hour) => n && cells.push(`${day}@${hour}=${n}`))
      );
      // Saturday 31 January 07:00 and 22:00; Sunday 1 February 10:00, 13:00, 15:00.
      assertEquals(cells, ["5@7=1", "5@22=1", "6@10=1", "6@13=1", "6@15=1"]);
      const day = await report("from=2026-02-01&to=2026-02-01&time_zone=America/New_York");
      assertEquals(day.period.granularity, "hour");
      assertEquals(day.series.buckets.length, 24);
      assertEquals(day.series.buckets[10], "2026-02-01T10");
      assertEquals(day.series.conversations[10], 1);
    });

    await t.step("per agent, bot and tag", async () => {
      const r = await report(NY);
      assertEquals(r.agents, [
        {
          id: h.abe,
          name: "Abe Admin",
          conversations: 1,
          first_response_median_seconds: 900,
          resolution_median_seconds: 3600,
          ratings: 1,
          good_share: 0,
        },
        {
          id: h.amy,
          name: "Amy Agent",
          conversations: 1,
          first_response_median_seconds: 300,
          resolution_median_seconds: 1800,
          ratings: 1,
          good_share: 1,
        },
      ]);
      assertEquals(r.bots.length, 1);
      const bot = r.bots[0];
      assertEquals(
        [bot.key, bot.conversations, bot.resolved, bot.ai_resolution_rate, bot.ratings],
        ["acme-helper", 5, 4, 0.5, 2],
      );
      assertEquals(bot.tokens, r.figures.tokens);
      assertEquals(r.tags, [
        {
          id: h.billing,
          name: "billing",
          conversations: 1,
          resolved: 1,
          resolution_median_seconds: 1800,
        },
        {
          id: h.urgent,
          name: "urgent",
          conversations: 1,
          resolved: 1,
          resolution_median_seconds: 3600,
        },
      ]);
    });

    await t.step("filters narrow every figure", async () => {
      const amy = await report(`${NY}&agent=${h.amy}`);
      assertEquals(amy.filters.agent, h.amy);
      assertEquals(amy.figures.conversations, 1);
      assertEquals(amy.figures.human_replies, 1);
      assertEquals(amy.figures.first_response.median_seconds, 300);
      assertEquals(amy.figures.ratings.distribution, [0, 0, 0, 0, 1]);
      const urgent = await report(`${NY}&tag=${h.urgent}`);
      assertEquals(urgent.figures.conversations, 1);
      assertEquals(urgent.figures.resolution_time.median_seconds, 3600);
      const bot = await report(`${NY}&bot=acme-helper`);
      assertEquals(bot.figures.conversations, 5);
      const sleeper = await report(`${NY}&bot=acme-sleeper`);
      assertEquals(sleeper.figures.conversations, 0);
      assertEquals(sleeper.figures.ai_resolution_rate, null);
      assertEquals(sleeper.figures.first_response.median_seconds, null);
    });

    await t.step("each table's CSV holds the API's rows and numbers", async () => {
      for (const query of [NY, `${NY}&agent=${h.amy}`, "from=2026-01-31&to=2026-02-01"]) {
        const api = await report(query);
        for (const table of ["agents", "bots", "tags"] as const) {
          const res = await fetch(`${s.url}/api/dashboard/reports/export?${query}&table=${table}`, {
            headers: { authorization: `Bearer ${D.acme.owner}` },
          });
          assertEquals(res.status, 200);
          assertEquals(res.headers.get("content-type"), "text/csv; charset=utf-8");
          const bytes = new Uint8Array(await res.arrayBuffer());
          assertEquals([...bytes.slice(0, 3)], [0xef, 0xbb, 0xbf], "a byte-order mark");
          const text = new TextDecoder().decode(bytes);
          const [header, ...lines] = text.split("\r\n").slice(0, -1)
            .map((l) => l.split(","));
          const rows = lines.map((cells) =>
            Object.fromEntries(header!.map((c, i) => {
              const v = cells[i]!;
              return [c, v === "" ? null : /^-?[\d.]+$/.test(v) ? Number(v) : v];
            }))
          );
          assertEquals(rows, api[table], `${table} ${query}`);
        }
      }
      const bad = await http(s.url, "GET", `/api/dashboard/reports/export?${NY}&table=people`, {
        token: D.acme.owner,
      });
      assertEquals(bad.status, 422);
      assertEquals(Object.keys(bad.body.errors), ["table"]);
    });

    await t.step("the portal answers the same report", async () => {
      const dashboard = await report(`${NY}&agent=${h.abe}`);
      const res = await http(s.url, "GET", `/api/portal/reports?${NY}&agent=${h.abe}`, {
        token: T.acme.owner.portal,
      });
      assertEquals(res.status, 200);
      assertEquals(res.body, dashboard);
      const globex = await http(s.url, "GET", `/api/portal/reports?${NY}`, {
        token: T.globex.owner.portal,
      });
      assertEquals(globex.status, 403, "globex has no portal");
    });

    await t.step("bad input is 422 naming the field", async () => {
      const cases: [string, string][] = [
        ["from=2026-02-30&to=2026-03-01", "from"],
        ["from=2026-02-02&to=2026-02-01", "to"],
        ["from=2024-01-01&to=2026-02-01", "to"],
        ["from=2026-02-01&to=2026-02-01&time_zone=Mars/Olympus", "time_zone"],
        ["from=2026-02-01&to=2026-02-01&bot=globex-bot", "bot"],
        ["to=2026-02-01", "from"],
      ];
      for (const [query, field] of cases) {
        const res = await http(s.url, "GET", `/api/dashboard/reports?${query}`, {
          token: D.acme.owner,
        });
        assertEquals(res.status, 422, query);
        assertEquals(Object.keys(res.body.errors), [field], query);
      }
    });

    await t.step("another workspace sees none of it", async () => {
      const r = await report(NY, D.globex.owner);
      assertEquals(r.figures.conversations, 0);
      assertEquals(r.agents, []);
      const res = await http(s.url, "GET", `/api/dashboard/reports?${NY}&agent=${h.amy}`, {
        token: D.globex.owner,
      });
      assertEquals(res.status, 422);
    });
  } finally {
    await s.stop();
    await fake.close();
  }
});
