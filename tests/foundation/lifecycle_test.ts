/**
 * The server's life: configuration errors, restarts on the same data,
 * migrations applied once, graceful SIGTERM, JSON request logs without
 * secrets, and two instances starting together (subprocesses where it
 * matters).
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { http } from "../helpers/http.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { standardSeed, T } from "../helpers/fixtures.ts";
import { createToken } from "../../domain/admin/create_token.ts";
import {
  createStorage,
  freePort,
  serverEnv,
  startOn,
  type Storage,
  waitReady,
} from "./server_with_deps.ts";

const MAIN = new URL("../../main.ts", import.meta.url).pathname;
const onPostgres = Boolean(Deno.env.get("DATABASE_URL"));

function spawnServer(env: Record<string, string>): Deno.ChildProcess {
  return new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", MAIN],
    env,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
}

async function seedFile(storage: Storage): Promise<string> {
  const path = `${storage.dataDir}/seed.json`;
  await Deno.writeTextFile(path, JSON.stringify(standardSeed()));
  return path;
}

Deno.test("a bad configuration value exits 1 with one line naming the variable", async () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ PORT: "abc" }, /^Configuration error: PORT must be an integer/],
    [{ LOG_LEVEL: "loud" }, /^Configuration error: LOG_LEVEL must be one of/],
    [{ DATABASE_URL: "mysql://db/x" }, /^Configuration error: DATABASE_URL must use postgres/],
    [
      { DATABASE_URL: "postgres://127.0.0.1/x", APP_KEY: "" },
      /^Configuration error: APP_KEY is required when DATABASE_URL is set$/,
    ],
    [{ APP_KEY: "too-short" }, /^Configuration error: APP_KEY must be 32 bytes/],
  ];
  await Promise.all(cases.map(async ([env, expected]) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", MAIN],
      env: { DATABASE_URL: "", REDIS_URL: "", DATA_DIR: "/nonexistent/never-created", ...env },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(out.stderr).trim();
    assertEquals(out.code, 1, JSON.stringify(env));
    assertEquals(stderr.split("\n").length, 1, stderr);
    assertMatch(stderr, expected);
    assertEquals(new TextDecoder().decode(out.stdout), "");
  }));
});

Deno.test(
  "a restart keeps the data, and the second start applies no migration",
  serverTestOptions,
  async () => {
    const storage = await createStorage();
    try {
      const first = await startOn(storage, { seed: standardSeed() });
      const migrations = await first.deps.sql`SELECT name, applied_at FROM schema_migrations`;
      assertOk(migrations.length >= 2);
      const issued = await createToken(
        { sql: first.deps.sql, appKey: first.deps.appKey, now: new Date() },
        { email: "owner@acme.test", name: "made before the restart" },
      );
      await first.stop();

      const second = await startOn(storage); // no SEED_FILE this time
      try {
        assertEquals(
          await second.deps.sql`SELECT name, applied_at FROM schema_migrations`,
          migrations,
        );
        for (const token of [issued.token, T.acme.owner.api]) {
          const me = await http(second.url, "GET", "/api/v1/me", { token });
          assertEquals(me.status, 200);
          assertEquals(me.body.company.slug, "acme");
        }
      } finally {
        await second.stop();
      }
    } finally {
      await storage.drop();
    }
  },
);

Deno.test(
  "SIGTERM drains: /readyz 503, requests still served, an in-flight body read; JSON request logs without secrets",
  serverTestOptions,
  async () => {
    const storage = await createStorage();
    const port = freePort();
    const env = serverEnv(storage, {
      PORT: String(port),
      LOG_LEVEL: "info",
      SEED_FILE: await seedFile(storage),
    });
    const child = spawnServer(env);
    const stdout = new Response(child.stdout).text();
    const stderr = new Response(child.stderr).text();
    const url = `http://127.0.0.1:${port}`;
    try {
      await waitReady(`${url}/readyz`);
      assertEquals((await http(url, "GET", "/api/v1/me", { token: T.acme.owner.api })).status, 200);
      assertEquals(
        (await http(url, "GET", "/api/v1/chatbots/acme-helper", { token: "not-a-real-token" }))
          .status,
        401,
      );
      assertEquals(
        (await http(url, "GET", "/api/v1/chatbots/acme-helper", {
          token: T.acme.administrator.api,
        })).status,
        200,
      );

      if (!onPostgres) {
        // The embedded data dir belongs to one process: a second one is refused, clearly.
        const second = await new Deno.Command(Deno.execPath(), {
          args: ["run", "-A", MAIN],
          env: { ...env, PORT: String(freePort()), SEED_FILE: "" },
          stdout: "piped",
          stderr: "piped",
        }).output();
        assertEquals(second.code, 1);
        assertMatch(new TextDecoder().decode(second.stderr), /in use by another process/);
      }

      // A request whose body is still arriving when SIGTERM lands.
      let finishBody!: () => void;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"visitor_id":'));
          finishBody = () => {
            controller.enqueue(new TextEncoder().encode('"v-1"}'));
            controller.close();
          };
        },
      });
      const inFlight = fetch(`${url}/widget/acme-helper/handoff`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
      });
      await new Promise((r) => setTimeout(r, 300));
      child.kill("SIGTERM");
      // Draining (docs/configuration.md): /readyz says so at once, while a new
      // request is still served, not refused, until the listener closes.
      let ready = await http(url, "GET", "/readyz");
      for (let i = 0; i < 40 && ready.status === 200; i++) {
        await new Promise((r) => setTimeout(r, 50));
        ready = await http(url, "GET", "/readyz");
      }
      assertEquals([ready.status, ready.body.status], [503, "draining"]);
      const during = await http(url, "GET", "/api/v1/me", { token: T.acme.owner.api });
      assertEquals(during.status, 200, during.text);
      finishBody();
      const res = await inFlight;
      if (res.status !== 422) console.error(await stderr);
      assertEquals(res.status, 422); // answered in full: conversation_id is missing
      assertEquals(Object.keys(await res.json()), ["message", "errors"]);
      const status = await child.status;
      assertEquals(status.code, 0);

      const lines = (await stdout).split("\n").filter((l) => l.startsWith("{"));
      const requests = lines.map((l) => JSON.parse(l)).filter((l) => l.msg === "request");
      assertOk(requests.length >= 4, `request lines: ${requests.length}`);
      for (const line of requests) {
        assertEquals(typeof line.method, "string");
        assertEquals(typeof line.route, "string");
        assertEquals(typeof line.status, "number");
        assertEquals(typeof line.duration_ms, "number");
      }
      assertOk(requests.some((l) => l.route === "/api/v1/chatbots/{key}" && l.status === 200));
      assertOk(requests.some((l) => l.route === "/widget/{key}/handoff" && l.status === 422));
      const all = (await stdout) + (await stderr);
      for (const secret of [T.acme.owner.api, T.acme.administrator.api, "correct horse"]) {
        assertOk(!all.includes(secret), `log leaks ${secret}`);
      }
    } finally {
      try {
        child.kill("SIGKILL");
      } catch { /* already exited */ }
      await child.status;
      await storage.drop();
    }
  },
);

Deno.test({
  name: "two server processes started at once on one PostgreSQL database both come up",
  ignore: !onPostgres,
  ...serverTestOptions,
  fn: async () => {
    const storage = await createStorage();
    const seed = await seedFile(storage);
    const ports = [freePort(), freePort()];
    const children = ports.map((port) =>
      spawnServer(serverEnv(storage, { PORT: String(port), SEED_FILE: seed }))
    );
    const outputs = children.map((
      c,
    ) => [new Response(c.stdout).text(), new Response(c.stderr).text()]);
    try {
      await Promise.all(ports.map((port) => waitReady(`http://127.0.0.1:${port}/readyz`)));
      for (const port of ports) {
        const me = await http(`http://127.0.0.1:${port}`, "GET", "/api/v1/me", {
          token: T.acme.owner.api,
        });
        assertEquals(me.status, 200);
      }
    } finally {
      for (const c of children) {
        try {
          c.kill("SIGTERM");
        } catch { /* exited */ }
      }
      const codes = await Promise.all(children.map((c) => c.status));
      await Promise.all(outputs.flat());
      await storage.drop();
      assertEquals(codes.map((c) => c.code), [0, 0]);
    }
  },
});
