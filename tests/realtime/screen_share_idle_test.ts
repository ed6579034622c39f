/**
 * A shared page that goes quiet ends as `left` (SCREEN_SHARE_IDLE_SECONDS):
 * the tab was closed without its goodbye, or its connection was lost. A page
 * that keeps sending (the widget's keep-alive is an empty batch) stays shared.
 */
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { nextEvent, pusherClient, subscribe } from "./pusher_helpers.ts";

Deno.test("screen share: a quiet page ends as left", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Happy to help." });
  const s = await startTestServer({
    seed: standardSeed(),
    env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl, SCREEN_SHARE_IDLE_SECONDS: "2" },
  });
  await s.deps.sql`
    UPDATE chatbots SET branding = branding || '{"screen_share": true}'::jsonb
     WHERE public_key = 'acme-helper'`;
  const agent = T.acme.agent.agent;
  const client = pusherClient(s, { token: agent });
  const share = async (visitor: string) => {
    const r = await postStream(s.url, "acme-helper", { visitor_id: visitor, message: "Hi" });
    const id = r.events[0]!.data.conversation_id as string;
    const joined = await subscribe(client, `private-screen.${id}`);
    if (!joined.ok) throw new Error("screen channel refused");
    await http(s.url, "POST", `/api/agent/conversations/${id}/screen-share`, { token: agent });
    const body = { visitor_id: visitor, conversation_id: id };
    const ok = await http(s.url, "POST", "/widget/acme-helper/screen-share", {
      headers: freshIp(),
      body: { ...body, action: "accept" },
    });
    assertEquals(ok.body.screen_share.state, "active");
    const keepAlive = () =>
      http(s.url, "POST", "/widget/acme-helper/screen-share/events", {
        headers: freshIp(),
        body: { ...body, events: [] },
      });
    const status = async () =>
      (await http(s.url, "GET", `/api/agent/conversations/${id}/screen-share`, { token: agent }))
        .body.screen_share;
    return { channel: joined.channel, keepAlive, status };
  };
  try {
    await t.step("a page that keeps sending stays shared", async () => {
      const live = await share("v_idle_live");
      for (let i = 0; i < 5; i++) {
        assertEquals((await live.keepAlive()).body, { accepted: 0 });
        await new Promise((r) => setTimeout(r, 800));
      }
      assertEquals((await live.status()).state, "active");
    });

    await t.step("a page gone quiet ends as left, and both sides are told", async () => {
      const quiet = await share("v_idle_quiet");
      type Update = { screen_share: { state: string; ended_by: string } };
      // The request's and the consent's own updates may still be arriving: wait for the end.
      let ended = await nextEvent<Update>(quiet.channel, "screen_share.updated", 10_000);
      while (ended.screen_share.state !== "ended") {
        ended = await nextEvent<Update>(quiet.channel, "screen_share.updated", 10_000);
      }
      assertEquals([ended.screen_share.state, ended.screen_share.ended_by], ["ended", "left"]);
      assertEquals((await quiet.keepAlive()).status, 409);
    });
  } finally {
    client.disconnect();
    await s.stop();
    await fake.close();
  }
});
