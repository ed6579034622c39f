/**
 * An alert no one could receive is not queued: with push set up but no
 * SMTP_URL, a workspace where no agent has a push subscription runs no
 * `notify_agents` job for its visitors' messages, while a workspace with one
 * still gets its pushes. Counted from outside, by /metrics' finished jobs.
 */
import webpush from "web-push";
import { assertEquals } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startPushService } from "../helpers/push_service.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
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
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      PUSH_ALLOW_HOSTS: push.hostPort,
      PUSH_CA_FILE: push.caFile,
      METRICS_TOKEN: METRICS,
    },
  });
  const chat = async (key: string, visitor: string) => {
    const r = await postStream(s.url, key, { visitor_id: visitor, message: "Hello there" });
    assertEquals(r.status, 200, r.text);
    return r.events[0]!.data.conversation_id as string;
  };
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

    // Once the queue is empty, the jobs that ran are Acme's two alerts only.
    const settled = await pollUntil(async () => {
      const m = await scrape(s.url, METRICS);
      const open = m.sum("parley_jobs", { kind: "notify_agents", status: "queued" }) +
        m.sum("parley_jobs", { kind: "notify_agents", status: "running" });
      const done = m.sum("parley_jobs_finished_total", { kind: "notify_agents" });
      return open === 0 && done >= 2 ? m : null;
    }, "the alert queue to settle");
    assertEquals(settled.sum("parley_jobs_finished_total", { kind: "notify_agents" }), 2);
    assertEquals(settled.sum("parley_jobs", { kind: "notify_agents" }), 0);
  } finally {
    await s.stop();
    await push.stop();
    await fake.close();
  }
});
