/**
 * A website's sync on the dashboard over HTTP: owners and administrators
 * set the schedule and press Sync now; a viewer and an agent are refused
 * (403); another workspace's source is 404; a seventh Sync now within a
 * minute by one user is 429.
 */
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { page, startLocalSite } from "../helpers/local_site.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pollUntil } from "../portal/poll.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";

const site = startLocalSite({ "/": page("Help", ["Our warehouse ships parcels on Tuesdays."]) });
const ai = startFakeAi();
const s = await startTestServer({ seed: dashboardSeed(), env: { AI_BASE_URL: ai.baseUrl } });
const base = "/api/dashboard/chatbots/acme-helper/knowledge";
const call = (method: string, path: string, token: string, body: unknown = {}) =>
  http(s.url, method, path, { token, body });

Deno.test("dashboard: a website's sync and schedule", serverTestOptions, async (t) => {
  try {
    const created = await call("POST", base, D.acme.owner, {
      type: "url",
      source_url: `${site.url}/`,
    });
    assertEquals(created.status, 201, created.text);
    const id = created.body.data.id as number;
    const ready = () =>
      pollUntil(async () => {
        const r = await http(s.url, "GET", base, { token: D.acme.viewer });
        const src = (r.body.data as { id: number; status: string }[]).find((x) => x.id === id);
        return src?.status === "ready" ? src : null;
      }, "the source to be ready");
    await ready();

    await t.step("a viewer and an agent may not sync or schedule", async () => {
      for (const token of [D.acme.viewer, D.acme.agent]) {
        assertEquals((await call("POST", `${base}/${id}/sync`, token)).status, 403);
        const put = await call("PUT", `${base}/${id}/schedule`, token, { sync_schedule: "daily" });
        assertEquals(put.status, 403);
      }
    });

    await t.step("another workspace's source is 404", async () => {
      const other = "/api/dashboard/chatbots/globex-bot/knowledge";
      assertEquals((await call("POST", `${other}/${id}/sync`, D.globex.owner)).status, 404);
      const put = await call("PUT", `${base}/${id}/schedule`, D.globex.owner, {
        sync_schedule: "weekly",
      });
      assertEquals(put.status, 404);
    });

    await t.step("the administrator schedules weekly and syncs now", async () => {
      const put = await call("PUT", `${base}/${id}/schedule`, D.acme.administrator, {
        sync_schedule: "weekly",
      });
      assertEquals([put.status, put.body.data.sync_schedule], [200, "weekly"]);
      const due = Date.parse(put.body.data.next_sync_at) - Date.now();
      assertEquals(Math.round(due / 86_400_000), 7);
      const sync = await call("POST", `${base}/${id}/sync`, D.acme.administrator);
      assertEquals([sync.status, sync.body.data.status], [200, "pending"]);
      await ready();
    });

    await t.step("Sync now is limited to 6 a minute per user", async () => {
      const statuses: number[] = [];
      for (let i = 0; i < 7; i++) {
        statuses.push((await call("POST", `${base}/${id}/sync`, D.acme.owner)).status);
      }
      // 200 or 409 (still syncing) while within the limit; then 429.
      assertEquals(statuses.slice(0, 6).every((x) => x === 200 || x === 409), true, `${statuses}`);
      assertEquals(statuses[6], 429);
      await ready();
    });
  } finally {
    await s.stop();
    await site.close();
    await ai.close();
  }
});
