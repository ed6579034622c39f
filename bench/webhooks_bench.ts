/**
 * Outbound webhooks: (1) throughput, events per second from the domain event
 * to a 2xx at a local receiver, one instance, events spread over 50
 * conversations (one conversation's events go one at a time per endpoint);
 * (2) what webhooks add to an agent reply: alternating rounds on one server
 * with the workspace's endpoint disabled (no subscriptions) and enabled
 * (subscribed to message.created, so each reply records an event and sends
 * it), p50 of the reply's HTTP round trip.
 */
import { startTestServer } from "../tests/helpers/test_server.ts";
import { standardSeed, T } from "../tests/helpers/fixtures.ts";
import { startFakeAi } from "../tests/helpers/fake_ai.ts";
import { postStream } from "../tests/widget/widget_client.ts";
import { startWebhookReceiver } from "../tests/helpers/webhook_receiver.ts";
import { publishEvent } from "../domain/events.ts";
import { onEachDatabase, percentile, timeRequests } from "./support.ts";

const EVENTS = Number(Deno.env.get("BENCH_WEBHOOK_EVENTS") ?? "3000");
const ROUNDS = Number(Deno.env.get("BENCH_WEBHOOK_ROUNDS") ?? "6");
const PER_ROUND = Number(Deno.env.get("BENCH_WEBHOOK_REPLIES") ?? "100");
const CONVERSATIONS = 50;

async function measure(): Promise<string> {
  const fake = startFakeAi({ reply: "Happy to help." });
  const receiver = startWebhookReceiver();
  const s = await startTestServer({
    seed: standardSeed(),
    env: {
      AI_BASE_URL: fake.baseUrl,
      TRUSTED_PROXIES: "127.0.0.1",
      WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
    },
  });
  try {
    const portal = (method: string, path: string, body?: unknown) =>
      fetch(`${s.url}/api/portal${path}`, {
        method,
        headers: {
          authorization: `Bearer ${T.acme.owner.portal}`,
          "content-type": "application/json",
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then((r) => r.json());
    const conversations: string[] = [];
    for (let i = 0; i < CONVERSATIONS; i++) {
      const r = await postStream(s.url, "acme-helper", {
        visitor_id: `wh-bench-${i}`,
        message: "Hi",
      });
      conversations.push(r.events[0]!.data.conversation_id as string);
    }
    const created = await portal("POST", "/webhooks", {
      url: `${receiver.url}/hook`,
      events: ["message.created"],
    });
    const endpointId = created.data.id as number;
    await new Promise((r) => setTimeout(r, 200));

    // (1) Throughput.
    receiver.received.length = 0;
    const [ws] = await s.deps.sql<{ id: number }[]>`SELECT id FROM workspaces WHERE slug = 'acme'`;
    const t0 = performance.now();
    for (let i = 0; i < EVENTS; i++) {
      await publishEvent(s.deps, {
        type: "message.created",
        workspaceId: Number(ws!.id),
        conversationId: conversations[i % CONVERSATIONS]!,
        messageId: 1_000_000 + i,
        role: "visitor",
        content: `Bench message ${i}`,
        createdAt: new Date().toISOString(),
      });
    }
    await receiver.waitFor(EVENTS, 600_000);
    const seconds = (performance.now() - t0) / 1000;

    // (2) Agent reply p50, endpoint off and on, alternating.
    const target = conversations[0]!;
    const auth = {
      authorization: `Bearer ${T.acme.owner.agent}`,
      "content-type": "application/json",
    };
    let n = 0;
    const reply = () =>
      fetch(`${s.url}/api/agent/conversations/${target}/reply`, {
        method: "POST",
        headers: auth,
        body: JSON.stringify({ body: `Reply ${n}`, client_id: `wh-bench-${n++}` }),
      });
    const off: number[] = [];
    const on: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      for (const enabled of round % 2 ? [true, false] : [false, true]) {
        await portal("PATCH", `/webhooks/${endpointId}`, { enabled });
        await new Promise((r) => setTimeout(r, 300));
        const times = await timeRequests(reply, { samples: PER_ROUND, warmUp: 10 });
        (enabled ? on : off).push(...times);
      }
    }
    const f2 = (v: number) => v.toFixed(2);
    return [
      `| ${s.deps.db.embedded ? "embedded PGlite" : "PostgreSQL"} | ${
        Math.round(EVENTS / seconds)
      } events/s (${EVENTS} in ${seconds.toFixed(1)} s) | ${f2(percentile(off, 0.5))} ms | ${
        f2(percentile(on, 0.5))
      } ms | ${f2(percentile(off, 0.9))} / ${f2(percentile(on, 0.9))} ms |`,
    ].join("\n");
  } finally {
    await s.stop();
    await receiver.stop();
    await fake.close();
  }
}

export async function run(): Promise<string> {
  const rows = await onEachDatabase(measure);
  return [
    "### Outbound webhooks",
    "",
    `Throughput: ${EVENTS} \`message.created\` events published on one instance over ${CONVERSATIONS} ` +
    "conversations, timed until the local receiver had every one (recorded, rendered, signed, " +
    `POSTed, settled; 8 in flight). Agent reply: ${ROUNDS} alternating rounds of ${PER_ROUND} ` +
    "sequential replies with the workspace's only endpoint disabled, then enabled.",
    "",
    "| Database | delivered | reply p50, no endpoint | reply p50, endpoint subscribed | p90 off / on |",
    "|---|---|---|---|---|",
    ...rows,
  ].join("\n");
}

if (import.meta.main) console.log(await run());
