// deno-lint-ignore-file no-explicit-any
/**
 * Turning a bot's `screen_share` flag off (the dashboard's bot form) ends its
 * open shares (issue 36, item 5): the visitor's widget and the agents'
 * sockets are told as for a stopped share (`screen_share.updated`, state
 * `ended`, `ended_by: turned_off`), the agents' screen channels end with
 * `pusher:subscription_error` 403 at once (the server's own re-check is 5
 * minutes away here), and the page is refused from then on. A request the
 * visitor has not answered ends too. On PostgreSQL, a request racing the
 * turning-off cannot outlive it.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { WIDGET_ENV } from "../widget/widget_client.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { type Channel, nextEvent, type Pusher, pusherClient, subscribe } from "./pusher_helpers.ts";
import { screenShareDriver, shareReaches } from "./screen_share_helpers.ts";

const NO_LONGER_ALLOWED =
  "You are no longer allowed on this channel (your role changed, the bot's screen sharing was turned off, or the conversation is gone).";
const PROMPTLY_MS = 3000;

Deno.test(
  "screen share: turning the bot's flag off ends its shares",
  serverTestOptions,
  async (t) => {
    const fake = startFakeAi({ reply: "Happy to help." });
    const s = await startTestServer({
      seed: dashboardSeed(),
      env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl, REALTIME_RECHECK_SECONDS: "300" },
    });
    const drive = screenShareDriver(s.url);
    const agent = T.acme.agent.agent;
    const clients: Pusher[] = [];
    const join = async (token: string | undefined, channel: string): Promise<Channel> => {
      const c = pusherClient(s, token ? { token } : {});
      clients.push(c);
      const r = await subscribe(c, channel);
      assertOk(r.ok, `subscribe ${channel}: ${JSON.stringify(r.ok ? "" : r.error)}`);
      return r.channel;
    };
    const turn = async (on: boolean) => {
      const r = await drive.setFlag(D.acme.owner, on);
      assertEquals(r.status, 200, r.text);
      assertEquals(r.body.data.branding.screen_share, on);
    };

    try {
      await t.step("an active share ends for the visitor and the agents at once", async () => {
        await turn(true);
        const conv = await drive.open("v_flag_off");
        const widget = await join(undefined, await drive.widgetChannel(conv, "v_flag_off"));
        const onScreen = await join(agent, `private-screen.${conv}`);
        const onConversation = await join(agent, `private-conversation.${conv}`);
        const started = shareReaches(onScreen, "active");
        assertEquals((await drive.request(conv, agent)).status, 200);
        assertEquals((await drive.answer(conv, "v_flag_off", "accept")).status, 200);
        await started;
        const page = nextEvent(onScreen, "screen_share.events");
        assertEquals((await drive.send(conv, "v_flag_off", 1)).status, 200);
        await page;

        const toWidget = shareReaches(widget, "ended", PROMPTLY_MS);
        const toConversation = shareReaches(onConversation, "ended", PROMPTLY_MS);
        const toScreen = shareReaches(onScreen, "ended", PROMPTLY_MS);
        const closed = nextEvent<any>(onScreen, "pusher:subscription_error", PROMPTLY_MS);
        let batches = 0;
        onScreen.bind("screen_share.events", () => batches++);
        const at = performance.now();
        await turn(false);
        const heard = await toWidget;
        assertEquals(heard.screen_share.state, "ended");
        assertEquals(heard.resync, false);
        assertEquals((await toConversation).screen_share.ended_by, "turned_off");
        assertEquals((await toScreen).screen_share.ended_by, "turned_off");
        const err = await closed;
        console.log(
          `screen subscription ended ${
            Math.round(performance.now() - at)
          } ms after the flag was sent`,
        );
        assertEquals(err.status, 403);
        assertEquals(err.error, NO_LONGER_ALLOWED);

        // From then on: the page is refused, the inbox and the widget see no share, no new subscription.
        const sent = await drive.send(conv, "v_flag_off", 2);
        assertEquals(sent.status, 409, sent.text);
        const status = await drive.status(conv, agent);
        assertEquals(status.body.enabled, false);
        assertEquals(status.body.screen_share.state, "ended");
        assertEquals(status.body.screen_share.ended_by, "turned_off");
        assertEquals(
          (await drive.heartbeat(conv, "v_flag_off")).body.conversation.screen_share,
          null,
        );
        const fresh = await http(s.url, "POST", "/api/agent/broadcasting/auth", {
          token: agent,
          body: { socket_id: "1.2", channel_name: `private-screen.${conv}` },
        });
        assertEquals(fresh.status, 403);
        assertEquals(batches, 0);
      });

      await t.step("a request the visitor has not answered ends too", async () => {
        await turn(true);
        const conv = await drive.open("v_flag_waiting");
        const widget = await join(undefined, await drive.widgetChannel(conv, "v_flag_waiting"));
        const asked = shareReaches(widget, "requested");
        assertEquals((await drive.request(conv, agent)).status, 200);
        await asked;
        const ended = shareReaches(widget, "ended", PROMPTLY_MS);
        await turn(false);
        await ended;
        assertEquals((await drive.status(conv, agent)).body.screen_share.ended_by, "turned_off");
        // The consent the widget might still send is refused: the flag is off.
        assertEquals((await drive.answer(conv, "v_flag_waiting", "accept")).status, 403);
      });

      await t.step("saving the form with the flag already off ends nothing more", async () => {
        const conv = await drive.open("v_flag_idle");
        const widget = await join(undefined, await drive.widgetChannel(conv, "v_flag_idle"));
        let told = 0;
        widget.bind("screen_share.updated", () => told++);
        await turn(false);
        await new Promise((r) => setTimeout(r, 300));
        assertEquals(told, 0);
      });

      await t.step({
        name: "a request racing the turning-off does not outlive it (PostgreSQL)",
        ignore: !Deno.env.get("DATABASE_URL"),
        fn: async () => {
          await turn(true);
          const conv = await drive.open("v_flag_race");
          // The turning-off's transaction, held open after it changed the bot's row.
          const tx = await s.deps.sql.reserve();
          try {
            await tx`BEGIN`;
            await tx`UPDATE chatbots SET branding = branding || '{"screen_share": false}'::jsonb
                     WHERE public_key = 'acme-helper'`;
            const request = drive.request(conv, agent);
            await new Promise((r) => setTimeout(r, 500));
            await tx`COMMIT`;
            const r = await request;
            assertEquals(r.status, 403, `the request read the flag before the change: ${r.text}`);
          } finally {
            tx.release();
          }
          assertEquals((await drive.status(conv, agent)).body.screen_share, null);
        },
      });
    } finally {
      for (const c of clients) c.disconnect();
      await s.stop();
      await fake.close();
    }
  },
);
