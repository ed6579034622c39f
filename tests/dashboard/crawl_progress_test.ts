/**
 * The dashboard's live knowledge over realtime, with the real pusher-js
 * client: a dashboard token signs `private-dashboard.{workspace}` through
 * POST /api/dashboard/broadcasting/auth; a crawl of a local site sends
 * `source.progress` events (pages found, indexed, failed, skipped) as it goes
 * and a last one when it is done, agreeing with the list; a visitor's
 * conversation sends `stats.changed`. Refused: another workspace's token,
 * an agent token on the dashboard channel, a dashboard token on the inbox's
 * channels, and an agent's dashboard token; sign-out and a demotion to agent
 * end the subscription.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { page, startLocalSite } from "../helpers/local_site.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { T } from "../helpers/fixtures.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { type Channel, nextEvent, pusherClient, subscribe } from "../realtime/pusher_helpers.ts";
import { D, dashboardSeed } from "./dashboard_seed.ts";

const a = page("Parcels", ["Parcels to Norway take four days by ferry."], ["/b", "/copy"]);
const site = startLocalSite({
  "/": page("Help", ["Our warehouse ships parcels on Tuesdays."], ["/a", "/missing"]),
  "/a": a,
  "/copy": a, // the same text: skipped on purpose
  "/b": page("Wrapping", ["Gift wrapping costs two euros."], ["/c"]),
  "/c": page("Hours", ["The desk answers from nine to five."]),
  // "/missing" answers 404: a failed page
}, { delayMs: 300 });
const ai = startFakeAi({ reply: "Four days." });
const s = await startTestServer({
  seed: dashboardSeed(),
  // Tokens behind subscriptions are re-checked every second (default 5).
  env: { ...WIDGET_ENV, AI_BASE_URL: ai.baseUrl, REALTIME_RECHECK_SECONDS: "1" },
});
const me = async (token: string) =>
  (await http(s.url, "GET", "/api/dashboard/me", { token })).body.company.id as number;
const acme = await me(D.acme.owner);
const globex = await me(D.globex.owner);
const clients: { disconnect(): void }[] = [];
const client = (token: string, surface: "agent" | "dashboard" = "dashboard") => {
  const c = pusherClient(s, { token, surface });
  clients.push(c);
  return c;
};

interface Progress {
  chatbot_id: number;
  source_id: number;
  status: string;
  done: boolean;
  pages_found: number | null;
  pages_indexed: number | null;
  pages_failed: number | null;
  pages_skipped: number | null;
  chunk_count: number;
  error: string | null;
}

/** Every `source.progress` on `ch` until one for `sourceId` says done. */
function progressUntilDone(ch: Channel, sourceId: () => number | null, ms = 30_000) {
  const seen: Progress[] = [];
  return {
    seen,
    done: new Promise<Progress[]>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no done event in ${ms} ms: ${JSON.stringify(seen)}`)),
        ms,
      );
      ch.bind("source.progress", (p: Progress) => {
        seen.push(p);
        if (p.source_id === sourceId() && p.done) {
          clearTimeout(timer);
          resolve(seen);
        }
      });
    }),
  };
}

Deno.test("dashboard realtime: crawl progress and refusals", serverTestOptions, async (t) => {
  try {
    await t.step("an owner's and a viewer's dashboard tokens join their channel", async () => {
      for (const token of [D.acme.owner, D.acme.viewer]) {
        const r = await subscribe(client(token), `private-dashboard.${acme}`);
        assertOk(r.ok, JSON.stringify(!r.ok && r.error));
      }
    });

    await t.step(
      "a crawl's progress arrives live, and its last event agrees with the list",
      async () => {
        const owner = client(D.acme.owner);
        const joined = await subscribe(owner, `private-dashboard.${acme}`);
        assertOk(joined.ok);
        // Globex's own dashboard hears nothing of acme's crawl.
        const other = await subscribe(client(D.globex.owner), `private-dashboard.${globex}`);
        assertOk(other.ok);
        const overheard: unknown[] = [];
        other.ok && other.channel.bind_global((e: string, d: unknown) => {
          if (!e.startsWith("pusher:")) overheard.push([e, d]);
        });

        let id: number | null = null;
        const events = progressUntilDone(joined.ok ? joined.channel : null!, () => id);
        const changed = nextEvent<{ source_id: number; action: string }>(
          joined.ok ? joined.channel : null!,
          "source.changed",
        );
        const r = await http(s.url, "POST", "/api/dashboard/chatbots/acme-helper/knowledge", {
          token: D.acme.owner,
          body: { type: "url", source_url: `${site.url}/` },
        });
        assertEquals(r.status, 201, JSON.stringify(r.body));
        id = r.body.data.id;
        assertEquals((await changed).source_id, id);
        const all = (await events.done).filter((p) => p.source_id === id);
        const last = all.at(-1)!;
        assertEquals(last.status, "ready", JSON.stringify(last));
        assertEquals(last.done, true);
        assertEquals(last.pages_found, 6, JSON.stringify(all));
        assertEquals(last.pages_indexed, 4, JSON.stringify(all));
        assertEquals(last.pages_failed, 1, JSON.stringify(all));
        assertEquals(last.pages_skipped, 1, JSON.stringify(all));
        assertOk(last.chunk_count > 0);
        // It was seen moving: processing first, then counts that only grow, before the end.
        assertEquals(all[0]!.status, "processing", JSON.stringify(all));
        const moving = all.filter((p) => p.status === "processing" && p.pages_found !== null);
        assertOk(moving.length >= 2, `progress events: ${JSON.stringify(all)}`);
        for (let i = 1; i < moving.length; i++) {
          assertOk(
            moving[i]!.pages_indexed! >= moving[i - 1]!.pages_indexed!,
            "indexed only grows",
          );
        }
        assertOk(moving.some((p) => p.pages_indexed! < 4), "seen part-way");
        const list = await http(s.url, "GET", "/api/dashboard/chatbots/acme-helper/knowledge", {
          token: D.acme.viewer,
        });
        const row = list.body.data.find((x: { id: number }) => x.id === id);
        assertEquals(
          [row.status, row.pages_found, row.pages_indexed, row.pages_failed, row.pages_skipped],
          ["ready", 6, 4, 1, 1],
        );
        assertEquals(row.chunk_count, last.chunk_count);
        assertEquals(overheard, []);
      },
    );

    await t.step("a text source's states arrive too (no crawl counts)", async () => {
      const joined = await subscribe(client(D.acme.administrator), `private-dashboard.${acme}`);
      assertOk(joined.ok);
      let id: number | null = null;
      const events = progressUntilDone(joined.ok ? joined.channel : null!, () => id);
      const r = await http(s.url, "POST", "/api/dashboard/chatbots/acme-helper/knowledge", {
        token: D.acme.administrator,
        body: { type: "text", content: "Returns are free within 30 days." },
      });
      id = r.body.data.id;
      const last = (await events.done).filter((p) => p.source_id === id).at(-1)!;
      assertEquals([last.status, last.pages_found], ["ready", null]);
      assertOk(last.chunk_count > 0);
    });

    await t.step("a visitor's conversation tells the dashboard its figures changed", async () => {
      const joined = await subscribe(client(D.acme.viewer), `private-dashboard.${acme}`);
      assertOk(joined.ok);
      const stats = nextEvent<{ what: string }>(
        joined.ok ? joined.channel : null!,
        "stats.changed",
      );
      const reply = await postStream(s.url, "acme-helper", {
        visitor_id: "v_dash_live",
        message: "How long to Norway?",
      });
      assertEquals(reply.status, 200);
      assertOk(["message", "conversation"].includes((await stats).what));
    });

    await t.step("the channel carries no client events", async () => {
      const sender = client(D.acme.viewer);
      const a = await subscribe(sender, `private-dashboard.${acme}`);
      const b = await subscribe(client(D.acme.owner), `private-dashboard.${acme}`);
      assertOk(a.ok && b.ok);
      const heard: unknown[] = [];
      b.ok && b.channel.bind("client-note", (d: unknown) => heard.push(d));
      const refused = nextEvent<{ data?: { message?: string } }>(sender.connection, "error");
      a.ok && a.channel.trigger("client-note", { text: "hello" });
      const err = await refused;
      assertOk(
        JSON.stringify(err).includes("not allowed on the dashboard channel"),
        JSON.stringify(err),
      );
      await new Promise((r) => setTimeout(r, 300));
      assertEquals(heard, []);
    });

    await t.step("another workspace's dashboard token cannot join acme's channel", async () => {
      const r = await subscribe(client(D.globex.owner), `private-dashboard.${acme}`);
      assertOk(!r.ok, "globex was let in");
      const direct = await http(s.url, "POST", "/api/dashboard/broadcasting/auth", {
        token: D.globex.owner,
        body: { socket_id: "123.456", channel_name: `private-dashboard.${acme}` },
      });
      assertEquals(direct.status, 403);
      assertEquals(direct.body.message, "You are not allowed on this channel.");
    });

    await t.step("agent tokens never open the dashboard channel", async () => {
      // The owner's own agent token, through the agent API's endpoint.
      const r = await subscribe(client(T.acme.owner.agent, "agent"), `private-dashboard.${acme}`);
      assertOk(!r.ok, "an agent token was let in");
      // An agent's dashboard token is refused by the dashboard's endpoint itself.
      const agent = await http(s.url, "POST", "/api/dashboard/broadcasting/auth", {
        token: D.acme.agent,
        body: { socket_id: "123.456", channel_name: `private-dashboard.${acme}` },
      });
      assertEquals(agent.status, 403);
      // The agent API's endpoint does not take a dashboard token.
      const wrongDoor = await http(s.url, "POST", "/api/agent/broadcasting/auth", {
        token: D.acme.owner,
        body: { socket_id: "123.456", channel_name: `private-dashboard.${acme}` },
      });
      assertOk([401, 403].includes(wrongDoor.status), String(wrongDoor.status));
    });

    await t.step("a dashboard token opens no inbox channel; bad input is 422", async () => {
      for (const ch of [`private-workspace.${acme}`, `presence-workspace.${acme}`]) {
        const r = await http(s.url, "POST", "/api/dashboard/broadcasting/auth", {
          token: D.acme.owner,
          body: { socket_id: "123.456", channel_name: ch },
        });
        assertEquals(r.status, 403, ch);
      }
      const bad = await http(s.url, "POST", "/api/dashboard/broadcasting/auth", {
        token: D.acme.owner,
        body: { socket_id: "nope", channel_name: "" },
      });
      assertEquals(bad.status, 422);
      assertOk(bad.body.errors.socket_id && bad.body.errors.channel_name, JSON.stringify(bad.body));
      const none = await http(s.url, "POST", "/api/dashboard/broadcasting/auth", {
        body: { socket_id: "123.456", channel_name: `private-dashboard.${acme}` },
      });
      assertEquals(none.status, 401);
    });

    await t.step("signing out ends the dashboard subscription", async () => {
      const login = await http(s.url, "POST", "/api/dashboard/login", {
        body: { email: "owner@acme.test", password: "correct horse battery staple" },
      });
      assertEquals(login.status, 200);
      const c = client(login.body.token);
      const joined = await subscribe(c, `private-dashboard.${acme}`);
      assertOk(joined.ok);
      const ended = nextEvent(joined.ok ? joined.channel : null!, "pusher:subscription_error");
      await http(s.url, "POST", "/api/dashboard/logout", { token: login.body.token });
      await ended;
    });

    await t.step(
      "an administrator demoted to agent loses the channel within a re-check",
      async () => {
        const admin = await http(s.url, "GET", "/api/dashboard/me", {
          token: D.acme.administrator,
        });
        const joined = await subscribe(client(D.acme.administrator), `private-dashboard.${acme}`);
        assertOk(joined.ok);
        const ended = nextEvent<{ status: number }>(
          joined.ok ? joined.channel : null!,
          "pusher:subscription_error",
          5000,
        );
        const demote = await http(s.url, "PATCH", `/api/dashboard/team/${admin.body.user.id}`, {
          token: D.acme.owner,
          body: { role: "agent" },
        });
        assertEquals(demote.status, 200, JSON.stringify(demote.body));
        assertEquals((await ended).status, 401);
      },
    );
  } finally {
    for (const c of clients) c.disconnect();
  }
});

Deno.test("stop the dashboard realtime test server", serverTestOptions, async () => {
  await s.stop();
  await site.close();
  await ai.close();
});
