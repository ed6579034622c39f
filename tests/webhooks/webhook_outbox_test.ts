/**
 * The transactional outbox: for each event kind no sweep could find again
 * (handoff requested, lead captured, assigned, resolved, rated, reopened), a
 * server process that dies right after its action committed, before it could
 * publish or record anything more, still has the event delivered after a
 * restart, once, signed. The moment is made exact by a proxy in front of
 * PostgreSQL that stalls every connection as soon as the database confirms
 * the action's COMMIT; the process is then SIGKILLed. PostgreSQL only: the
 * embedded database lives inside the process, with no link to cut.
 */
import { assertEquals } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { startFaultProxy } from "../helpers/fault_proxy.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { createStorage, freePort, serverEnv, waitReady } from "../foundation/server_with_deps.ts";
import { startWebhookReceiver, verifyWebhook } from "../helpers/webhook_receiver.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const KEY = "acme-helper";
const KINDS = [
  "conversation.handoff_requested",
  "lead.captured",
  "conversation.assigned",
  "conversation.resolved",
  "conversation.rated",
  "conversation.reopened",
];

Deno.test({
  name: "an outbox event committed by a process killed before it published is delivered once",
  ...serverTestOptions,
  ignore: !Deno.env.get("DATABASE_URL"),
  fn: async () => {
    const storage = await createStorage();
    const target = new URL(storage.databaseUrl!);
    const proxy = startFaultProxy({ hostname: target.hostname, port: Number(target.port || 5432) });
    const fake = startFakeAi({ reply: "Happy to help." });
    const receiver = startWebhookReceiver();
    const seedPath = `${storage.dataDir}/seed.json`;
    await Deno.writeTextFile(seedPath, JSON.stringify(standardSeed()));
    let child: Deno.ChildProcess | null = null;
    let url = "";
    const start = async (seed: boolean) => {
      const port = freePort();
      const env = serverEnv(storage, {
        ...WIDGET_ENV,
        PORT: String(port),
        REALTIME_PORT: String(freePort()),
        DATABASE_URL: proxy.urlFor(storage.databaseUrl!),
        AI_BASE_URL: fake.baseUrl,
        WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
        WEBHOOK_POLL_MS: "200",
        // A delivery claimed by a killed process is retried this soon (not the case here).
        WEBHOOK_LEASE_SECONDS: "2",
        ...(seed ? { SEED_FILE: seedPath } : {}),
      });
      child = new Deno.Command(Deno.execPath(), {
        args: ["run", "-A", MAIN],
        env,
        stdout: "null",
        stderr: "null",
      }).spawn();
      url = `http://127.0.0.1:${port}`;
      await waitReady(`${url}/readyz`);
    };
    /**
     * Run `action` with the database cut just after its commit, SIGKILL, restart,
     * and wait for the `expected` deliveries from the new process.
     */
    const crashAfterCommit = async (
      label: string,
      expected: number,
      action: () => Promise<number>,
    ) => {
      const before = receiver.received.length;
      proxy.stallAfterCommit();
      assertEquals(await action(), 200, label);
      child!.kill("SIGKILL");
      await child!.status;
      proxy.heal();
      // Nothing left the dead process: its database link stalled at the commit.
      assertEquals(receiver.received.length, before, label);
      await start(false);
      await receiver.waitFor(before + expected, 20_000);
    };
    const agent = (path: string, body?: unknown) =>
      http(url, "POST", `/api/agent${path}`, { token: T.acme.owner.agent, body }).then((r) =>
        r.status
      );
    try {
      await start(true);
      const created = await http(url, "POST", "/api/portal/webhooks", {
        token: T.acme.owner.portal,
        body: { url: `${receiver.url}/hook`, events: KINDS },
      });
      assertEquals(created.status, 201, created.text);
      const secret = created.body.data.secret as string;
      const visitor = `v_ob_${crypto.randomUUID().slice(0, 8)}`;
      const r = await postStream(url, KEY, { visitor_id: visitor, message: "Hello" });
      assertEquals(r.status, 200);
      const conversation = r.events[0]!.data.conversation_id as string;
      const me = await http(url, "GET", "/api/agent/me", { token: T.acme.owner.agent });
      const ownerId = me.body.user.id as number;

      await crashAfterCommit(
        "handoff with an e-mail",
        2,
        () =>
          http(url, "POST", `/widget/${KEY}/handoff`, {
            body: { visitor_id: visitor, conversation_id: conversation, email: "lead@example.com" },
          }).then((r) => r.status),
      );
      await crashAfterCommit(
        "assign",
        1,
        () => agent(`/conversations/${conversation}/assign`, { user_id: ownerId }),
      );
      await crashAfterCommit("resolve", 1, () => agent(`/conversations/${conversation}/resolve`));
      await crashAfterCommit("rate", 1, () =>
        http(url, "POST", `/widget/${KEY}/rating`, {
          body: { visitor_id: visitor, conversation_id: conversation, rating: 4 },
        }).then((r) => r.status));
      await crashAfterCommit("reopen", 1, () => agent(`/conversations/${conversation}/reopen`));

      await new Promise((r) => setTimeout(r, 1000)); // nothing more arrives
      const hits = receiver.received;
      assertEquals(receiver.received.length, KINDS.length);
      assertEquals(hits.map((h) => h.json.type).sort(), [...KINDS].sort());
      assertEquals(new Set(hits.map((h) => h.id)).size, KINDS.length);
      for (const hit of hits) {
        verifyWebhook(secret, hit);
        assertEquals(
          (hit.json.data as { conversation: { id: string } }).conversation.id,
          conversation,
        );
      }
      const byType = (t: string) =>
        hits.find((h) => h.json.type === t)!.json.data as Record<
          string,
          unknown
        >;
      assertEquals(byType("lead.captured").lead, { email: "lead@example.com" });
      assertEquals(byType("conversation.assigned").assigned_user_id, ownerId);
      assertEquals(byType("conversation.rated").rating, { score: 4, comment: null });
      assertEquals(byType("conversation.reopened").by, "agent");
    } finally {
      if (child) {
        try {
          (child as Deno.ChildProcess).kill("SIGKILL");
        } catch { /* gone */ }
        await (child as Deno.ChildProcess).status;
      }
      await proxy.close();
      await receiver.stop();
      await fake.close();
      await storage.drop();
    }
  },
});
