/**
 * The dashboard's "Send test event": a `ping` for one endpoint, whatever it
 * subscribes to, signed (checked with the `standardwebhooks` package), listed
 * in that endpoint's deliveries and no other's; another workspace's endpoint
 * is 404, a disabled one 409, an agent 403.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { http } from "../helpers/http.ts";
import { waitUntil } from "../helpers/wait.ts";
import { startWebhookReceiver, verifyWebhook } from "../helpers/webhook_receiver.ts";
import { D, dashboardSeed } from "../dashboard/dashboard_seed.ts";

const receiver = startWebhookReceiver();
const s = await startTestServer({
  seed: dashboardSeed(),
  env: { WEBHOOK_ALLOW_HOSTS: `127.0.0.1:${receiver.port}`, WEBHOOK_POLL_MS: "50" },
});
const call = (method: string, path: string, token: string, body?: unknown) =>
  http(s.url, method, `/api/dashboard${path}`, { token, ...(body === undefined ? {} : { body }) });

async function addEndpoint(token: string, path: string, events: string[]) {
  const r = await call("POST", "/webhooks", token, { url: `${receiver.url}${path}`, events });
  assertEquals(r.status, 201, r.text);
  return r.body.data as { id: number; secret: string };
}

Deno.test("send a test event to one webhook endpoint", serverTestOptions, async (t) => {
  try {
    const first = await addEndpoint(D.acme.owner, "/first", ["lead.captured"]);
    const other = await addEndpoint(D.acme.owner, "/other", ["lead.captured"]);
    const globex = await addEndpoint(D.globex.owner, "/globex", ["lead.captured"]);

    await t.step(
      "the receiver gets a signed ping, listed in that endpoint's deliveries",
      async () => {
        const r = await call("POST", `/webhooks/${first.id}/test`, D.acme.owner);
        assertEquals(r.status, 200, r.text);
        assertOk(/^msg_[0-9a-f]{32}$/.test(r.body.event_id), r.text);
        const [hit] = await receiver.waitFor(1);
        assertEquals(receiver.received.length, 1, "only the endpoint asked");
        verifyWebhook(first.secret, hit!);
        assertEquals(hit!.id, r.body.event_id);
        assertEquals(hit!.json.type, "ping");
        assertEquals(hit!.json.version, 1);
        assertEquals((hit!.json.data as { endpoint: { id: number } }).endpoint.id, first.id);

        await waitUntil(async () => {
          const list = await call("GET", `/webhooks/${first.id}/deliveries`, D.acme.owner);
          const d = list.body.data?.[0];
          return d?.event_type === "ping" && d.status === "succeeded" &&
            d.event_id === r.body.event_id;
        }, "the ping listed as succeeded");
        const others = await call("GET", `/webhooks/${other.id}/deliveries`, D.acme.owner);
        assertEquals(others.body.data.length, 0);
      },
    );

    await t.step("another workspace's endpoint is 404 and gets nothing", async () => {
      const r = await call("POST", `/webhooks/${globex.id}/test`, D.acme.owner);
      assertEquals(r.status, 404, r.text);
      const missing = await call("POST", `/webhooks/999999/test`, D.acme.owner);
      assertEquals(missing.status, 404, missing.text);
      const list = await call("GET", `/webhooks/${globex.id}/deliveries`, D.globex.owner);
      assertEquals(list.body.data.length, 0);
    });

    await t.step("an agent is refused; a disabled endpoint is 409", async () => {
      const agent = await call("POST", `/webhooks/${first.id}/test`, D.acme.agent);
      assertEquals(agent.status, 403, agent.text);
      const off = await call("PATCH", `/webhooks/${other.id}`, D.acme.owner, { enabled: false });
      assertEquals(off.status, 200, off.text);
      const r = await call("POST", `/webhooks/${other.id}/test`, D.acme.owner);
      assertEquals(r.status, 409, r.text);
      assertOk(r.body.message.includes("disabled"), r.text);
    });
  } finally {
    await s.stop();
    await receiver.stop();
  }
});
