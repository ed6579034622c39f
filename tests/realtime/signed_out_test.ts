// deno-lint-ignore-file no-explicit-any
/**
 * A subscription lasts as long as the token that authorised it: signing out
 * ends it at once, and a token that expires, or whose user or workspace is
 * suspended, loses its channels at the next re-check (a second here). The
 * socket is told with `pusher:subscription_error` (401) on each channel and
 * hears nothing more there, while other agents' subscriptions carry on.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { setUserSuspended } from "../../domain/admin/set_user_suspended.ts";
import { type Channel, nextEvent, pusherClient, subscribe } from "./pusher_helpers.ts";

Deno.test(
  "realtime: a revoked, expired or suspended token's subscriptions end",
  serverTestOptions,
  async (t) => {
    const s = await startTestServer({
      seed: standardSeed(),
      env: { REALTIME_RECHECK_SECONDS: "1" },
    });
    const owner = (await http(s.url, "GET", "/api/agent/me", { token: T.acme.owner.agent })).body;
    const workspace = `private-workspace.${owner.company.id}`;
    const presence = `presence-workspace.${owner.company.id}`;
    const watcher = pusherClient(s, { token: T.acme.owner.agent });
    const clients: ReturnType<typeof pusherClient>[] = [watcher];
    let ip = 10;
    const login = async () => {
      const r = await http(s.url, "POST", "/api/agent/login", {
        body: { email: EMAIL.acmeAgent, password: PASSWORD, device_name: "Laptop" },
        headers: { "x-forwarded-for": `203.0.113.${ip++}` },
      });
      assertEquals(r.status, 200, r.text);
      return r.body.token as string;
    };
    /** An agent app signed in with `token`, on the workspace channel. */
    const agentApp = async (token: string) => {
      const client = pusherClient(s, { token });
      clients.push(client);
      const sub = await subscribe(client, workspace);
      assertOk(sub.ok, `subscribe: ${JSON.stringify(sub.ok ? "" : sub.error)}`);
      return sub.channel;
    };
    /** A visitor-side change every workspace subscriber hears. */
    const ping = () =>
      http(s.url, "POST", "/widget/acme-helper/heartbeat", {
        headers: { "x-forwarded-for": `198.51.100.${ip++}` },
        body: { visitor_id: `v_out_${ip}`, chat_open: true },
      });
    const ended = (ch: Channel) => nextEvent<any>(ch, "pusher:subscription_error", 8000);
    const silent = async (ch: Channel) => {
      let heard = 0;
      ch.bind("visitor.seen", () => heard++);
      const heardByWatcher = nextEvent(watched, "visitor.seen");
      await ping();
      await heardByWatcher;
      await new Promise((r) => setTimeout(r, 300));
      assertEquals(heard, 0, "an ended subscription still received visitor.seen");
    };
    const w = await subscribe(watcher, workspace);
    assertOk(w.ok);
    const watched = w.channel;

    try {
      await t.step("signing out ends the token's channels at once; others carry on", async () => {
        const token = await login();
        const ch = await agentApp(token);
        const client = clients.at(-1)!;
        const p = await subscribe(client, presence);
        assertOk(p.ok);
        const heard = nextEvent(ch, "visitor.seen");
        await ping();
        await heard; // subscribed and receiving
        const agentId = (await http(s.url, "GET", "/api/agent/me", { token })).body.user.id;
        const onPresence = await subscribe(watcher, presence);
        assertOk(onPresence.ok);
        const gone = nextEvent<{ id: string }>(onPresence.channel, "pusher:member_removed", 8000);
        const end = ended(ch);
        const started = Date.now();
        const out = await http(s.url, "POST", "/api/agent/logout", { token });
        assertEquals(out.status, 200);
        const err = await end;
        assertEquals(err.status, 401);
        assertOk(Date.now() - started < 2000, "the sign-out event ends it, not the re-check");
        assertEquals((await gone).id, String(agentId)); // and it left presence
        await silent(ch);
      });

      await t.step("a suspended user loses its channels within seconds", async () => {
        const token = await login();
        const ch = await agentApp(token);
        const end = ended(ch);
        const deps = { sql: s.deps.sql, appKey: s.deps.appKey, now: new Date() };
        await setUserSuspended(deps, { email: EMAIL.acmeAgent, suspended: true });
        try {
          assertEquals((await end).status, 401);
          await silent(ch);
        } finally {
          await setUserSuspended(deps, { email: EMAIL.acmeAgent, suspended: false });
        }
      });

      await t.step("an expired token loses its channels within seconds", async () => {
        const token = await login();
        const ch = await agentApp(token);
        const end = ended(ch);
        // Arranged in the database: waiting out a token's real lifetime is not a test.
        const id = Number(token.split("|")[0]);
        await s.deps.sql`UPDATE access_tokens SET expires_at = now() - interval '1 second'
                          WHERE id = ${id}`;
        assertEquals((await end).status, 401);
        await silent(ch);
      });

      await t.step("the other agent's subscription was never touched", async () => {
        const heard = nextEvent(watched, "visitor.seen");
        await ping();
        await heard;
      });
    } finally {
      for (const c of clients) c.disconnect();
      await s.stop();
    }
  },
);
