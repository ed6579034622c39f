/**
 * An alert no one could receive is not queued: with push set up but no
 * SMTP_URL, a workspace where no agent has a push subscription runs no
 * `notify_agents` job for its visitors' messages, and neither does a
 * visitor's message in a conversation the AI handles alone (nobody assigned,
 * nobody waited for, no watcher); a workspace with a subscriber still gets
 * its chat_started, handoff and waiting-message pushes. Counted from
 * outside, by /metrics' finished jobs.
 */
import webpush from "web-push";
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { pushEnv, startPushService } from "../helpers/push_service.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { scrape } from "../observability/prometheus.ts";
import { pollUntil } from "../portal/poll.ts";

const METRICS = "alert-reach-metrics-token-0001";

Deno.test("alerts: queued only where an agent can receive them", serverTestOptions, async () => {
  const vapid = webpush.generateVAPIDKeys();
  const fake = startFakeAi({ reply: "Happy to help." });
  const push = await startPushService();
  const s = await startTestServer({
    seed: standardSeed(),
    env: {
      ...WIDGET_ENV,
      AI_BASE_URL: fake.baseUrl,
      ...pushEnv(push, vapid),
      METRICS_TOKEN: METRICS,
    },
  });
  const chat = async (key: string, visitor: string, conversation?: string) => {
    const r = await postStream(s.url, key, {
      visitor_id: visitor,
      message: "Hello there",
      ...(conversation ? { conversation_id: conversation } : {}),
    });
    assertEquals(r.status, 200, r.text);
    return r.events[0]!.data.conversation_id as string;
  };
  const settle = async (jobs: number) =>
    await pollUntil(async () => {
      const m = await scrape(s.url, METRICS);
      const open = m.sum("parley_jobs", { kind: "notify_agents", status: "queued" }) +
        m.sum("parley_jobs", { kind: "notify_agents", status: "running" });
      const done = m.sum("parley_jobs_finished_total", { kind: "notify_agents" });
      return open === 0 && done >= jobs ? done : null;
    }, "the alert queue to settle");
  try {
    // Globex: nobody subscribed, no e-mail. A new chat raises chat_started and visitor_message.
    await chat("globex-bot", "reach-globex-1");

    // Acme: an agent subscribes, then a visitor starts a chat; the push arrives.
    const sub = await push.subscribe();
    const reg = await http(s.url, "POST", "/api/agent/push/subscriptions", {
      token: T.acme.agent.agent,
      body: { endpoint: sub.endpoint, keys: sub.keys },
    });
    assertEquals(reg.status, 201, reg.text);
    const acmeChat = await chat("acme-helper", "reach-acme-1");
    await push.waitFor((p) =>
      p.subscriptionId === sub.id && p.payload.kind === "chat_started" &&
      p.payload.conversation_id === acmeChat
    );

    // The AI handles it alone: a second message tells no one, and queues nothing.
    await chat("acme-helper", "reach-acme-1", acmeChat);
    // The visitor asks for a person: the handoff alert, then a waiting message's alert.
    const handoff = await http(s.url, "POST", "/widget/acme-helper/handoff", {
      body: { visitor_id: "reach-acme-1", conversation_id: acmeChat },
      headers: freshIp(),
    });
    assertEquals(handoff.status, 200, handoff.text);
    await push.waitFor((p) =>
      p.subscriptionId === sub.id && p.payload.kind === "handoff_requested"
    );
    await chat("acme-helper", "reach-acme-1", acmeChat);
    await push.waitFor((p) => p.subscriptionId === sub.id && p.payload.kind === "visitor_message");

    // Once the queue is empty, the jobs that ran are those three alerts alone.
    assertEquals(await settle(3), 3);
    const kinds = push.received.filter((p) => p.subscriptionId === sub.id)
      .map((p) => p.payload.kind as string);
    assertEquals(kinds.sort(), ["chat_started", "handoff_requested", "visitor_message"]);
  } finally {
    await s.stop();
    await push.stop();
    await fake.close();
  }
});
