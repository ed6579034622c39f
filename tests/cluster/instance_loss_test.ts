/**
 * Losing an instance and restarting each in turn, under steady load through
 * nginx (widget streams, agent replies, sockets):
 * - SIGKILL: nothing acknowledged is lost (a visitor message that reached
 *   `meta`, an agent reply answered 200), requests sent after the kill all
 *   succeed on the other instances, and sockets reconnect through the
 *   balancer and receive later events;
 * - SIGTERM one instance after another (a rolling restart): not one request
 *   fails.
 *
 * Needs DATABASE_URL and REDIS_URL (skipped on the embedded backend).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { T } from "../helpers/fixtures.ts";
import { connected, nextEvent, pusherClient, subscribe } from "../realtime/pusher_helpers.ts";
import { readStream, startTestCluster } from "./cluster_helpers.ts";
import { type Outcome, runLoad } from "./load.ts";

const shared = Boolean(Deno.env.get("DATABASE_URL") && Deno.env.get("REDIS_URL"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

Deno.test({
  name: "instances can be lost and restarted one by one under load",
  ignore: !shared,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const { cluster, ai, close } = await startTestCluster();
    const lb = cluster.url;
    ai.chunkDelayMs = 15; // streams last long enough to be cut
    const me = (await http(lb, "GET", "/api/agent/me", { token: T.acme.agent.agent })).body;
    const channel = `private-workspace.${me.company.id}`;
    const sockets = Array.from(
      { length: 6 },
      () => pusherClient({ url: lb, realtimePort: cluster.port }, { token: T.acme.agent.agent }),
    );
    const subscribed = await Promise.all(sockets.map(async (s) => {
      await connected(s);
      const sub = await subscribe(s, channel);
      if (!sub.ok) throw new Error("subscription refused");
      return sub.channel;
    }));
    const conversation =
      (await readStream(lb, "acme-helper", { visitor_id: "v_loss", message: "Hi" }))
        .events[0]!.data.conversation_id as string;

    /** Every socket receives a reply sent now (after reconnecting, if it must). */
    async function everySocketHears(marker: string) {
      const heard = subscribed.map((ch) =>
        nextEvent<{ message: { content: string } }>(
          ch,
          "message.created",
          20_000,
        )
      );
      const r = await http(lb, "POST", `/api/agent/conversations/${conversation}/reply`, {
        token: T.acme.agent.agent,
        body: { body: marker },
      });
      assertEquals(r.status, 200);
      const got = await Promise.all(heard);
      for (const g of got) assertEquals(g.message.content, marker);
    }

    /** Every acknowledged message is in its conversation. */
    async function nothingAcknowledgedLost(outcomes: Outcome[]) {
      const byConversation = new Map<string, number[]>();
      for (const o of outcomes) {
        if (o.ack) {
          byConversation.set(o.ack.conversation, [
            ...(byConversation.get(o.ack.conversation) ?? []),
            o.ack.messageId,
          ]);
        }
      }
      for (const [id, messageIds] of byConversation) {
        const r = await http(lb, "GET", `/api/v1/conversations/${id}`, { token: T.acme.owner.api });
        assertEquals(r.status, 200);
        const stored = new Set((r.body.data.messages as { id: number }[]).map((m) => m.id));
        for (const m of messageIds) assertOk(stored.has(m), `message ${m} of ${id} lost`);
      }
      return byConversation.size;
    }

    try {
      await t.step(
        "SIGKILL one instance: nothing acknowledged is lost, the others answer",
        async () => {
          const load = runLoad(lb, conversation);
          await sleep(1500);
          const victim = cluster.instances[1]!;
          await victim.kill("SIGKILL");
          const killedAt = performance.now();
          await sleep(3000);
          const outcomes = await load.stop();
          const after = outcomes.filter((o) => o.startedAt > killedAt);
          const failedAfter = after.filter((o) => !o.ok);
          assertEquals(failedAfter.map((o) => o.error), [], "requests sent after the kill");
          assertOk(after.length > 10, `load after the kill: ${after.length}`);
          const conversations = await nothingAcknowledgedLost(outcomes);
          assertOk(conversations > 5);
          await everySocketHears("After the kill");
          await victim.start();
        },
      );

      await t.step("SIGTERM each instance in turn: not one request fails", async () => {
        const load = runLoad(lb, conversation);
        await sleep(1000);
        for (const instance of cluster.instances) {
          await instance.kill("SIGTERM");
          await instance.start();
          await sleep(500);
        }
        const outcomes = await load.stop();
        assertEquals(outcomes.filter((o) => !o.ok).map((o) => o.error), []);
        assertOk(outcomes.length > 30, `requests during the restarts: ${outcomes.length}`);
        await nothingAcknowledgedLost(outcomes);
        await everySocketHears("After the rolling restart");
      });
    } finally {
      for (const s of sockets) s.disconnect();
      await close();
    }
  },
});
