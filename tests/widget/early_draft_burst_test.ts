/**
 * Under a burst, a provider call starts before its turn is stored only while
 * few turns wait for the database (domain/conversations/turns_in_flight.ts):
 * the others call the provider once stored. PostgreSQL only: the test holds
 * a lock on `conversations` from a connection of its own, so every turn
 * waits, which the embedded database (one connection, the server's) cannot
 * show from outside. The server's `parley_visitor_turns_storing` gauge says
 * when every turn has made its choice.
 */
import postgres from "postgres";
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { createTestDatabase, serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { waitUntil } from "../helpers/wait.ts";
import { EARLY_DRAFTS_UP_TO_WAITING } from "../../domain/ai/reply_draft.ts";
import { postStream, WIDGET_ENV } from "./widget_client.ts";

const KEY = "acme-helper";
const REPLY = "We are open from nine to five.";
const BURST = EARLY_DRAFTS_UP_TO_WAITING + 36;
const METRICS_TOKEN = "burst-test-metrics-token";

Deno.test({
  ...serverTestOptions,
  name: "widget: a burst of first messages drafts early only while few turns wait",
  ignore: !Deno.env.get("DATABASE_URL"),
  fn: async () => {
    const storage = (await createTestDatabase())!;
    const fake = startFakeAi({ reply: REPLY });
    const seed = standardSeed();
    seed.workspaces[0]!.plan = "unlimited";
    const s = await startTestServer({
      seed,
      databaseUrl: storage.url,
      env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl, METRICS_TOKEN },
    });
    const locker = postgres(storage.url, { max: 1, onnotice: () => {} });
    let release!: () => void;
    const released = new Promise<void>((r) => release = r);
    const chatCalls = () => fake.requests.filter((r) => r.stream).length;
    const turnsStoring = async () => {
      const res = await fetch(`${s.url}/metrics`, {
        headers: { authorization: `Bearer ${METRICS_TOKEN}` },
      });
      const line = (await res.text()).split("\n")
        .find((l) => l.startsWith("parley_visitor_turns_storing "));
      return Number(line?.split(" ")[1]);
    };
    try {
      // The server reads the bot once; from then on first messages take the kept copy.
      assertEquals(
        (await postStream(s.url, KEY, { visitor_id: "v_warm", message: "Hi" })).status,
        200,
      );
      const before = chatCalls();

      let locked!: () => void;
      const isLocked = new Promise<void>((r) => locked = r);
      const holding = locker.begin(async (tx) => {
        await tx`LOCK TABLE conversations IN EXCLUSIVE MODE`;
        locked();
        await released;
      });
      await isLocked;

      const streams = Array.from(
        { length: BURST },
        (_, i) =>
          postStream(s.url, KEY, { visitor_id: `v_burst_${i}`, message: "When are you open?" }),
      );
      // Every turn now waits for the lock, each having decided whether to call the
      // provider first: only the first ones did.
      await waitUntil(async () => await turnsStoring() === BURST, "every turn waiting");
      await waitUntil(
        () => chatCalls() - before >= EARLY_DRAFTS_UP_TO_WAITING,
        "the early drafts' calls",
      );
      assertEquals(chatCalls() - before, EARLY_DRAFTS_UP_TO_WAITING);

      release();
      await holding;
      const results = await Promise.all(streams);
      for (const r of results) {
        assertEquals(r.status, 200);
        assertEquals(r.events[0]!.event, "meta");
        assertEquals(r.events.at(-1)!.event, "done");
        const text = r.events.filter((e) => e.event === "delta").map((e) => e.data.delta).join("");
        assertEquals(text, REPLY);
      }
      // The rest called once stored: one call per message, none twice.
      assertEquals(chatCalls() - before, BURST);
      const ids = new Set(results.map((r) => r.events[0]!.data.conversation_id));
      assertOk(ids.size === BURST, "every message opened its own conversation");
    } finally {
      release(); // a failed step must not leave the lock held
      await locker.end();
      await s.stop();
      await fake.close();
      await storage.drop();
    }
  },
});
