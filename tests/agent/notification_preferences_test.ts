/**
 * Notification preferences: the documented defaults, partial updates,
 * `events` merged kind by kind with unknown kinds ignored, quiet hours only
 * with both ends, DND turned into an end time (0 cancels), the bot filter
 * keeping only the workspace's bots, and a 422 naming the field for every
 * bad value.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";

const s = await startTestServer({ seed: standardSeed(), env: { VAPID_GENERATE: "0" } });
const AMY: string = T.acme.agent.agent;
const PATH = "/api/agent/notifications/preferences";
const get = (token = AMY) => http(s.url, "GET", PATH, { token });
const patch = (body: unknown, token = AMY) => http(s.url, "PATCH", PATH, { token, body });

const DEFAULTS = {
  push_enabled: true,
  sound_enabled: true,
  vibrate_enabled: true,
  email_enabled: false,
  events: {
    visitor_arrived: { push: false, sound: null },
    chat_started: { push: true, sound: null },
    visitor_message: { push: true, sound: null },
    handoff_requested: { push: true, sound: null },
    sla_breach: { push: true, sound: null },
  },
  sound_pack: "default",
  volume: 80,
  quiet_hours_start: null,
  quiet_hours_end: null,
  quiet_hours_tz: "UTC",
  dnd_until: null,
  chatbot_filter: null,
};

Deno.test("notification preferences", serverTestOptions, async (t) => {
  try {
    await t.step("an agent who never saved anything gets the defaults", async () => {
      const r = await get();
      assertEquals(r.status, 200);
      assertEquals(r.body, DEFAULTS);
      assertEquals((await http(s.url, "GET", PATH)).status, 401);
      assertEquals((await get(T.acme.viewer.agent)).status, 403);
      assertEquals((await get(T.acme.owner.api)).status, 403);
    });

    await t.step("only the fields sent change", async () => {
      const r = await patch({ volume: 35, sound_pack: "chimes", vibrate_enabled: false });
      assertEquals(r.status, 200);
      assertEquals(r.body, {
        ...DEFAULTS,
        volume: 35,
        sound_pack: "chimes",
        vibrate_enabled: false,
      });
      const again = await patch({ email_enabled: true });
      assertEquals(again.body.volume, 35);
      assertEquals(again.body.email_enabled, true);
      assertEquals((await get()).body, again.body);
      // Another agent's settings are untouched.
      assertEquals((await get(T.acme.administrator.agent)).body, DEFAULTS);
    });

    await t.step("events are merged kind by kind; unknown kinds are ignored", async () => {
      const first = await patch({
        events: {
          chat_started: { push: false, sound: "bell" },
          visitor_message: { push: true, sound: "pop" },
        },
      });
      assertEquals(first.status, 200);
      const second = await patch({
        events: {
          visitor_message: { push: false },
          teleport_requested: { push: true, sound: "zap" },
          future_kind: "anything",
        },
      });
      assertEquals(second.status, 200, second.text);
      assertEquals(second.body.events, {
        ...DEFAULTS.events,
        chat_started: { push: false, sound: "bell" },
        // push changed, the sound not sent is kept
        visitor_message: { push: false, sound: "pop" },
      });
      const reset = await patch({ events: { visitor_message: { push: true, sound: null } } });
      assertEquals(reset.body.events.visitor_message, { push: true, sound: null });
      assertEquals(reset.body.events.chat_started, { push: false, sound: "bell" });
    });

    await t.step("quiet hours change only when both ends are sent", async () => {
      const both = await patch({ quiet_hours_start: "22:00", quiet_hours_end: "07:30" });
      assertEquals([both.body.quiet_hours_start, both.body.quiet_hours_end], ["22:00", "07:30"]);
      const halfStart = await patch({ quiet_hours_start: "20:00" });
      assertEquals(halfStart.status, 200);
      assertEquals([halfStart.body.quiet_hours_start, halfStart.body.quiet_hours_end], [
        "22:00",
        "07:30",
      ]);
      const halfEnd = await patch({ quiet_hours_end: "06:00", volume: 50 });
      assertEquals(halfEnd.status, 200);
      assertEquals(halfEnd.body.quiet_hours_end, "07:30");
      assertEquals(halfEnd.body.volume, 50); // the rest of the request still applies
      const halfNull = await patch({ quiet_hours_start: null, quiet_hours_end: "06:00" });
      assertEquals([halfNull.body.quiet_hours_start, halfNull.body.quiet_hours_end], [
        "22:00",
        "07:30",
      ]);
      const tz = await patch({ quiet_hours_tz: "Europe/Berlin" });
      assertEquals(tz.body.quiet_hours_tz, "Europe/Berlin");
      const cleared = await patch({ quiet_hours_start: null, quiet_hours_end: null });
      assertEquals([cleared.body.quiet_hours_start, cleared.body.quiet_hours_end], [null, null]);
    });

    await t.step("dnd_minutes sets an end time, 0 cancels, 1440 is the most", async () => {
      const before = Date.now();
      const on = await patch({ dnd_minutes: 45 });
      assertEquals(on.status, 200);
      const until = Date.parse(on.body.dnd_until);
      assertOk(until >= before + 45 * 60_000 - 1000 && until <= Date.now() + 45 * 60_000 + 1000);
      assertEquals((await patch({ volume: 10 })).body.dnd_until, on.body.dnd_until);
      const max = await patch({ dnd_minutes: 1440 });
      assertOk(Date.parse(max.body.dnd_until) > Date.now() + 1439 * 60_000);
      const off = await patch({ dnd_minutes: 0 });
      assertEquals(off.body.dnd_until, null);
    });

    await t.step("chatbot_filter keeps the workspace's bots only; empty removes it", async () => {
      const bots = await s.deps.sql<{ id: number; public_key: string }[]>`
        SELECT id, public_key FROM chatbots ORDER BY id`;
      const id = (key: string) => bots.find((b) => b.public_key === key)!.id;
      const mixed = await patch({
        chatbot_filter: [
          id("acme-sleeper"),
          id("globex-bot"),
          999_999,
          id("acme-helper"),
          id("acme-helper"),
        ],
      });
      assertEquals(mixed.status, 200);
      assertEquals(
        mixed.body.chatbot_filter,
        [id("acme-helper"), id("acme-sleeper")].sort((a, b) => a - b),
      );
      const foreign = await patch({ chatbot_filter: [id("globex-bot"), 424242] });
      assertEquals(foreign.body.chatbot_filter, null);
      await patch({ chatbot_filter: [id("acme-helper")] });
      assertEquals((await patch({ chatbot_filter: [] })).body.chatbot_filter, null);
      await patch({ chatbot_filter: [id("acme-helper")] });
      assertEquals((await patch({ chatbot_filter: null })).body.chatbot_filter, null);
    });

    await t.step("every bad value is a 422 naming the field, and nothing is saved", async () => {
      const saved = (await get()).body;
      const cases: [Record<string, unknown>, string][] = [
        [{ push_enabled: "yes" }, "push_enabled"],
        [{ sound_enabled: 1 }, "sound_enabled"],
        [{ vibrate_enabled: null }, "vibrate_enabled"],
        [{ email_enabled: "true" }, "email_enabled"],
        [{ events: "all" }, "events"],
        [{ events: { chat_started: { sound: "bell" } } }, "events.chat_started.push"],
        [{ events: { sla_breach: { push: "no" } } }, "events.sla_breach.push"],
        [
          { events: { visitor_message: { push: true, sound: "s".repeat(25) } } },
          "events.visitor_message.sound",
        ],
        [
          { events: { handoff_requested: { push: true, sound: 7 } } },
          "events.handoff_requested.sound",
        ],
        [{ sound_pack: "p".repeat(25) }, "sound_pack"],
        [{ volume: 101 }, "volume"],
        [{ volume: -1 }, "volume"],
        [{ volume: 50.5 }, "volume"],
        [{ quiet_hours_start: "24:00", quiet_hours_end: "07:00" }, "quiet_hours_start"],
        [{ quiet_hours_start: "22:00", quiet_hours_end: "7:00" }, "quiet_hours_end"],
        [{ quiet_hours_tz: "Mars/Olympus_Mons" }, "quiet_hours_tz"],
        [{ quiet_hours_tz: "E".repeat(65) }, "quiet_hours_tz"],
        [{ dnd_minutes: 1441 }, "dnd_minutes"],
        [{ dnd_minutes: -5 }, "dnd_minutes"],
        [{ dnd_minutes: "30" }, "dnd_minutes"],
        [{ chatbot_filter: "1,2" }, "chatbot_filter"],
        [{ chatbot_filter: [1, "two"] }, "chatbot_filter.1"],
      ];
      for (const [body, field] of cases) {
        const r = await patch({ ...body, volume: body.volume ?? 11 });
        assertEquals(r.status, 422, `${JSON.stringify(body)}: ${r.text}`);
        assertOk(r.body.errors?.[field], `${field} in ${JSON.stringify(r.body.errors)}`);
        assertEquals(typeof r.body.message, "string");
      }
      assertEquals((await get()).body, saved);
    });
  } finally {
    await s.stop();
  }
});
