/**
 * A server process killed (SIGKILL) while a delivery is in flight: after a
 * restart on the same database the delivery is sent again, once its lease
 * runs out, under the same webhook-id and signed with the same secret.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { createStorage, freePort, serverEnv, waitReady } from "../foundation/server_with_deps.ts";
import { startWebhookReceiver, verifyWebhook } from "../helpers/webhook_receiver.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;

function spawnServer(env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env,
    stdout: "null",
    stderr: "null",
  }).spawn();
}

Deno.test(
  "a delivery cut by SIGKILL is sent again after a restart, same webhook-id",
  serverTestOptions,
  async () => {
    const storage = await createStorage();
    const fake = startFakeAi({ reply: "Happy to help." });
    const receiver = startWebhookReceiver();
    let release!: () => void;
    const hang = new Promise<void>((r) => release = r);
    // The first request is never answered: the process dies while waiting for it.
    receiver.respond = async (_hit, n) => {
      if (n === 1) await hang;
      return new Response(null, { status: 204 });
    };
    const seedPath = `${storage.dataDir}/seed.json`;
    await Deno.writeTextFile(seedPath, JSON.stringify(standardSeed()));
    const env = (port: number, seed: boolean) =>
      serverEnv(storage, {
        ...WIDGET_ENV,
        PORT: String(port),
        AI_BASE_URL: fake.baseUrl,
        WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`,
        WEBHOOK_LEASE_SECONDS: "2",
        WEBHOOK_POLL_MS: "100",
        WEBHOOK_TIMEOUT_MS: "60000",
        ...(seed ? { SEED_FILE: seedPath } : {}),
      });
    let child: Deno.ChildProcess | null = null;
    try {
      const port1 = freePort();
      child = spawnServer(env(port1, true));
      const url1 = `http://127.0.0.1:${port1}`;
      await waitReady(`${url1}/readyz`);
      const created = await http(url1, "POST", "/api/portal/webhooks", {
        token: T.acme.owner.portal,
        body: { url: `${receiver.url}/hook`, events: ["conversation.created"] },
      });
      assertEquals(created.status, 201);
      const secret = created.body.data.secret as string;
      const r = await postStream(url1, "acme-helper", { visitor_id: "crash", message: "Hi" });
      assertEquals(r.status, 200);
      const [first] = await receiver.waitFor(1);
      child.kill("SIGKILL");
      await child.status;
      child = null;

      const port2 = freePort();
      child = spawnServer(env(port2, false));
      await waitReady(`http://127.0.0.1:${port2}/readyz`);
      const hits = await receiver.waitFor(2, 20_000);
      assertEquals(hits[1]!.id, first!.id);
      assertEquals(hits[1]!.body, first!.body);
      verifyWebhook(secret, hits[0]!);
      verifyWebhook(secret, hits[1]!);
      // The receiver has its answer a moment before the attempt is recorded: read until it is.
      const readLog = async () =>
        (await http(
          `http://127.0.0.1:${port2}`,
          "GET",
          `/api/portal/webhooks/${created.body.data.id}/deliveries`,
          { token: T.acme.owner.portal },
        )).body.data;
      let [d] = await readLog();
      for (let i = 0; i < 100 && d?.status !== "succeeded"; i++) {
        await new Promise((r) => setTimeout(r, 50));
        [d] = await readLog();
      }
      assertEquals(d.status, "succeeded");
      // The attempt the killed process made was never logged; the retry counts as the second.
      assertEquals(d.attempt_log.map((a: { attempt: number }) => a.attempt), [2]);
      assertOk(receiver.received.length === 2);
    } finally {
      release();
      if (child) {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
        await child.status;
      }
      await receiver.stop();
      await fake.close();
      await storage.drop();
    }
  },
);
