/**
 * Behind the shipped balancer (cli/cluster/nginx_config.ts, which
 * deploy/nginx.conf is) a knowledge file over nginx's general 5 MiB body
 * limit still reaches the instance: an 8 MiB file is uploaded (201), and one
 * over 20 MiB is refused by the instance with its own JSON 413, not nginx's
 * HTML page.
 */
import { assertEquals, assertOk } from "../helpers/assert.ts";
import { T } from "../helpers/fixtures.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { dashboardSeed } from "../dashboard/dashboard_seed.ts";
import { uploadFile } from "../helpers/knowledge_files.ts";
import { ensureNginx, startNginx } from "../../cli/cluster/nginx.ts";
import { freePort } from "../../cli/cluster/start_cluster.ts";

Deno.test("knowledge file uploads pass the shipped nginx", serverTestOptions, async () => {
  const port = freePort();
  const server = await startTestServer({
    seed: dashboardSeed(),
    env: { TRUSTED_PROXIES: "127.0.0.1", BASE_URL: `http://127.0.0.1:${port}` },
  });
  const nginx = await startNginx(
    await ensureNginx(() => {}),
    [{ http: `127.0.0.1:${server.port}`, socket: `127.0.0.1:${server.realtimePort}` }],
    `127.0.0.1:${port}`,
  ).catch(async (err) => {
    await server.stop();
    throw err;
  });
  try {
    const url = `http://127.0.0.1:${port}`;
    const path = "/api/portal/chatbots/acme-helper/knowledge/files";
    const text = new Uint8Array(8 * 1024 * 1024).fill(0x62);
    for (let i = 0; i < text.length; i += 70) text[i] = 0x0a;
    const ok = await uploadFile(url, path, T.acme.owner.portal, { name: "big.txt", bytes: text });
    assertEquals(ok.status, 201, JSON.stringify(ok.body));
    const over = await uploadFile(url, path, T.acme.owner.portal, {
      name: "huge.txt",
      bytes: new Uint8Array(20 * 1024 * 1024 + 1).fill(0x62),
    });
    assertEquals(over.status, 413);
    assertOk(String(over.body.message).includes("20 MiB"), JSON.stringify(over.body));
  } finally {
    await nginx.stop();
    await server.stop();
  }
});
