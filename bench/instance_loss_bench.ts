/**
 * Losing an instance and a rolling restart, measured: three instances behind
 * nginx on PostgreSQL + Redis, steady load (three widget stream loops, two
 * agent reply loops, six sockets through the balancer). SIGKILL one instance,
 * then SIGTERM-and-restart each in turn; reports requests, failures (those in
 * flight at the kill apart), acknowledged messages lost, and how long the
 * sockets took to hear an event sent after the kill.
 *
 *   deno task bench instance_loss
 */
import { realPostgresUrl, withDatabase } from "./support.ts";
import { readStream, startTestCluster } from "../tests/cluster/cluster_helpers.ts";
import { type Outcome, runLoad } from "../tests/cluster/load.ts";
import { T } from "../tests/helpers/fixtures.ts";
import { connected, nextEvent, pusherClient, subscribe } from "../tests/realtime/pusher_helpers.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function lost(lb: string, outcomes: Outcome[]): Promise<number> {
  let missing = 0;
  const byConversation = new Map<string, number[]>();
  for (const o of outcomes) {
    if (o.ack) {
      byConversation.set(o.ack.conversation, [
        ...(byConversation.get(o.ack.conversation) ?? []),
        o.ack.messageId,
      ]);
    }
  }
  for (const [id, ids] of byConversation) {
    const res = await fetch(`${lb}/api/v1/conversations/${id}`, {
      headers: { authorization: `Bearer ${T.acme.owner.api}` },
    });
    const stored = new Set(((await res.json()).data.messages as { id: number }[]).map((m) => m.id));
    missing += ids.filter((m) => !stored.has(m)).length;
  }
  return missing;
}

export async function run(): Promise<string> {
  const pg = await realPostgresUrl();
  if (!pg) return "## Instance loss\n\nSkipped: no PostgreSQL.";
  Deno.env.set("REDIS_URL", Deno.env.get("REDIS_URL") ?? "redis://127.0.0.1:6379");
  const { cluster, ai, close } = await withDatabase(pg, () => startTestCluster());
  ai.chunkDelayMs = 15;
  const lb = cluster.url;
  try {
    const me = await (await fetch(`${lb}/api/agent/me`, {
      headers: { authorization: `Bearer ${T.acme.agent.agent}` },
    })).json();
    const channel = `private-workspace.${me.company.id}`;
    const sockets = Array.from(
      { length: 6 },
      () => pusherClient({ url: lb, realtimePort: cluster.port }, { token: T.acme.agent.agent }),
    );
    const channels = await Promise.all(sockets.map(async (s) => {
      await connected(s);
      const sub = await subscribe(s, channel);
      if (!sub.ok) throw new Error("subscription refused");
      return sub.channel;
    }));
    const conversation = (await readStream(lb, "acme-helper", { visitor_id: "v_b", message: "Hi" }))
      .events[0]!.data.conversation_id as string;

    let load = runLoad(lb, conversation);
    await sleep(2000);
    await cluster.instances[1]!.kill("SIGKILL");
    const killedAt = performance.now();
    const heard = channels.map((ch) => nextEvent(ch, "message.created", 30_000));
    await fetch(`${lb}/api/agent/conversations/${conversation}/reply`, {
      method: "POST",
      headers: {
        authorization: `Bearer ${T.acme.agent.agent}`,
        "content-type": "application/json",
      },
      body: JSON.stringify({ body: "after the kill" }),
    }).then((r) => r.body?.cancel());
    await Promise.all(heard);
    const socketsBack = performance.now() - killedAt;
    await sleep(3000);
    const killed = await load.stop();
    const killLost = await lost(lb, killed);
    await cluster.instances[1]!.start();

    load = runLoad(lb, conversation);
    await sleep(1000);
    const rollStart = performance.now();
    for (const instance of cluster.instances) {
      await instance.kill("SIGTERM");
      await instance.start();
      await sleep(500);
    }
    const rollSeconds = (performance.now() - rollStart) / 1000;
    const rolled = await load.stop();
    const rollLost = await lost(lb, rolled);
    for (const s of sockets) s.disconnect();

    const after = killed.filter((o) => o.startedAt > killedAt);
    return [
      "## Scale-out: losing an instance, and a rolling restart (three instances behind nginx)",
      "",
      "| Event | Requests | Failed | Acknowledged and lost | Other |",
      "|---|---|---|---|---|",
      `| SIGKILL one instance under load | ${killed.length} (${after.length} after the kill) | ${
        killed.filter((o) => !o.ok).length
      } in flight at the kill, ${after.filter((o) => !o.ok).length} after | ${killLost} | ` +
      `all 6 sockets heard an event sent after the kill ${socketsBack.toFixed(0)} ms after it |`,
      `| SIGTERM and restart each instance in turn | ${rolled.length} | ${
        rolled.filter((o) => !o.ok).length
      } | ${rollLost} | ${rollSeconds.toFixed(1)} s for the three restarts |`,
    ].join("\n");
  } finally {
    await close();
  }
}
