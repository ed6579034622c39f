/**
 * Three instances behind nginx on one PostgreSQL and one Redis
 * (cli/cluster/start_cluster.ts, the topology of compose.yaml): a widget
 * stream arrives unbuffered and an agent reply goes through the balancer;
 * sockets held on different instances each receive a reply's event exactly
 * once; the route limit and the login lockout hold across instances; a
 * background job runs once. Instance loss and rolling restarts are in
 * instance_loss_test.ts.
 *
 * Needs DATABASE_URL and REDIS_URL (skipped on the embedded backend).
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { clientAt } from "../helpers/client_at.ts";
import { T } from "../helpers/fixtures.ts";
import { page, startLocalSite } from "../helpers/local_site.ts";
import { pollUntil } from "../portal/poll.ts";
import { connected, nextEvent, pusherClient, subscribe } from "../realtime/pusher_helpers.ts";
import { readStream, startTestCluster } from "./cluster_helpers.ts";

const shared = Boolean(Deno.env.get("DATABASE_URL") && Deno.env.get("REDIS_URL"));

Deno.test({
  name: "three instances behind nginx behave as one",
  ignore: !shared,
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const { cluster, ai, close } = await startTestCluster({ chunkDelayMs: 0 });
    const lb = cluster.url;
    try {
      await t.step("a widget stream's events pass the balancer as they are written", async () => {
        ai.chunkDelayMs = 150;
        const stream = await readStream(lb, "acme-helper", {
          visitor_id: "v_lb_stream",
          message: "Do you ship to Norway?",
        });
        ai.chunkDelayMs = 0;
        assertEquals(stream.status, 200);
        assertEquals(stream.events.map((e) => e.event).filter((e, i, a) => a[i - 1] !== e), [
          "meta",
          "delta",
          "done",
        ]);
        // Buffered by the proxy, every event would arrive together at the end.
        const firstDelta = stream.events.find((e) => e.event === "delta")!;
        const done = stream.events.at(-1)!;
        assertOk(
          done.atMs - firstDelta.atMs > 300,
          `first delta ${firstDelta.atMs}, done ${done.atMs}`,
        );
      });

      await t.step("sockets on each instance get one reply's event exactly once", async () => {
        const start = await readStream(lb, "acme-helper", {
          visitor_id: "v_lb_sock",
          message: "Hi",
        });
        const conversation = start.events[0]!.data.conversation_id as string;
        const me = (await http(lb, "GET", "/api/agent/me", { token: T.acme.agent.agent })).body;
        const channel = `private-workspace.${me.company.id}`;
        // One socket straight on each instance, and one through the balancer.
        const targets = [...cluster.instances, { url: lb, realtimePort: cluster.port }];
        const clients = targets.map((s) => pusherClient(s, { token: T.acme.agent.agent }));
        try {
          const seen = clients.map(() => [] as string[]);
          const arrived = await Promise.all(clients.map(async (c, i) => {
            await connected(c);
            const sub = await subscribe(c, channel);
            if (!sub.ok) throw new Error(`no subscription on target ${i}`);
            sub.channel.bind("message.created", (d: { message: { content: string } }) => {
              seen[i]!.push(d.message.content);
            });
            // Wrapped, so that subscribing does not wait for the event itself.
            return { next: nextEvent(sub.channel, "message.created", 10_000) };
          }));
          const reply = await http(lb, "POST", `/api/agent/conversations/${conversation}/reply`, {
            token: T.acme.agent.agent,
            body: { body: "One event per socket" },
          });
          assertEquals(reply.status, 200);
          await Promise.all(arrived.map((a) => a.next));
          await new Promise((r) => setTimeout(r, 500)); // a duplicate would land meanwhile
          for (const [i, contents] of seen.entries()) {
            assertEquals(contents.filter((c) => c === "One event per socket").length, 1, `${i}`);
          }
        } finally {
          for (const c of clients) c.disconnect();
        }
      });

      await t.step("the login route limit holds across instances", async () => {
        // A client of its own address: nginx's X-Forwarded-For names it to every instance.
        const client = clientAt("127.0.0.4");
        try {
          const statuses: number[] = [];
          for (let i = 0; i < 11; i++) {
            statuses.push(
              await client.request(`${lb}/api/agent/login`, {
                method: "POST",
                body: { email: "agent@acme.test", password: "correct horse battery staple" },
              }),
            );
          }
          assertEquals(statuses.slice(0, 10), Array(10).fill(200));
          assertEquals(statuses[10], 429);
        } finally {
          client.close();
        }
      });

      await t.step("the login lockout holds across instances", async () => {
        const client = clientAt("127.0.0.5");
        const login = (password: string) =>
          client.request(`${lb}/api/agent/login`, {
            method: "POST",
            body: { email: "admin@acme.test", password },
          });
        try {
          const wrong = [];
          for (let i = 0; i < 5; i++) wrong.push(await login("not the password"));
          assertEquals(wrong, [401, 401, 401, 401, 401]);
          assertEquals(await login("correct horse battery staple"), 429);
        } finally {
          client.close();
        }
      });

      await t.step("a body nginx keeps on disk reaches the instance (200 KB of text)", async () => {
        // Over nginx's 16 KB in-memory buffer the request body is written to the temp
        // directory under the cluster's prefix, which nginx's workers must be able to enter.
        const text = "Our returns desk answers every parcel question. ".repeat(4_200);
        const created = await http(lb, "POST", "/api/portal/chatbots/acme-helper/knowledge", {
          token: T.acme.owner.portal,
          body: { type: "text", title: "A long page", content: text },
        });
        assertEquals(created.status, 201, JSON.stringify(created.body));
      });

      await t.step("a background job (a crawl) runs once between the instances", async () => {
        const site = startLocalSite({
          "/": page("Home", ["The balancer guide."], ["/a", "/b"]),
          "/a": page("A", ["Page a talks about aardvarks."]),
          "/b": page("B", ["Page b talks about badgers."]),
        });
        try {
          const created = await http(lb, "POST", "/api/portal/chatbots/acme-helper/knowledge", {
            token: T.acme.owner.portal,
            body: { type: "url", source_url: `${site.url}/` },
          });
          assertEquals(created.status, 201);
          const id = created.body.data.id as number;
          await pollUntil(
            async () => {
              const r = await http(lb, "GET", "/api/portal/chatbots/acme-helper/knowledge", {
                token: T.acme.owner.portal,
              });
              const s = (r.body.data as { id: number; status: string }[]).find((x) => x.id === id);
              return s?.status === "ready";
            },
            "the crawl to finish",
            30_000,
          );
          for (const path of ["/", "/a", "/b"]) assertEquals(site.hitsOf(path), 1, path);
        } finally {
          await site.close();
        }
      });
    } finally {
      await close();
    }
  },
});
