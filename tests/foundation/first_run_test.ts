/**
 * The first run, as the README describes it: `deno task start` on a fresh
 * data dir (the embedded default, whatever the suite's backend), with
 * AI_BASE_URL at the test stub and no stored key, and the demo bot answers
 * through v1 and the widget. A second start on the busy data dir says so in
 * one plain line. Then `deno task admin key:set` stores a key, and the next
 * start answers with it.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions } from "../helpers/test_server.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { http } from "../helpers/http.ts";
import { postStream } from "../widget/widget_client.ts";
import { banner } from "../../main.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

interface Started {
  child: Deno.ChildProcess;
  banner: string;
  url: string;
  token: string | null;
  /** What it wrote to stderr so far (Deno's own warnings land there). */
  stderr(): string;
  /** Stops it as Ctrl-C does; resolves with what it printed after the banner. */
  stop(): Promise<string>;
}

function task(args: string[], env: Record<string, string>): Deno.Command {
  return new Deno.Command(Deno.execPath(), {
    args: ["task", ...args],
    cwd: ROOT,
    // The README's command on a fresh machine: no database or Redis configured.
    env: { ...env, DATABASE_URL: "", REDIS_URL: "", APP_KEY: "", NO_COLOR: "1" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

/** `deno task start` until its banner is printed. */
async function start(env: Record<string, string>): Promise<Started> {
  const child = task(["start"], env).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  const deadline = Date.now() + 60_000;
  while (!out.includes("└") && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  // Keep reading: what it says while stopping is part of the contract.
  let after = "";
  const rest = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        after += value;
      }
    } catch { /* the stream ends with the process */ }
  })();
  let errors = "";
  void (async () => {
    try {
      for await (const chunk of child.stderr.pipeThrough(new TextDecoderStream())) errors += chunk;
    } catch { /* the stream ends with the process */ }
  })();
  assertOk(out.includes("└"), `no banner: ${out}`);
  const url = out.match(/running at (\S+)/)![1]!;
  const token = out.match(/Settings token: (\S+)/)?.[1] ?? null;
  return {
    child,
    banner: out,
    url,
    token: token?.startsWith("(") ? null : token,
    stderr: () => errors,
    stop: async () => {
      child.kill("SIGINT");
      await child.status;
      await rest;
      return after;
    },
  };
}

Deno.test("first run: the demo bot answers", serverTestOptions, async (t) => {
  const fake = startFakeAi({ reply: "Hello from the stub model." });
  const dataDir = await Deno.makeTempDir({ prefix: "parley-first-run-" });
  const env = { DATA_DIR: dataDir, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "warn" };
  let token = "";
  try {
    await t.step("AI_BASE_URL and no stored key: v1 and the widget answer", async () => {
      const s = await start({ ...env, AI_BASE_URL: fake.baseUrl });
      try {
        assertMatch(s.banner, /AI models:\s+every provider at http:\/\/127\.0\.0\.1/);
        assertOk(s.token, "the settings token is printed on the first start");
        token = s.token!;
        // One token format everywhere (OpenAPI, token:revoke's help): `<id>|<secret>`.
        assertMatch(token, /^\d+\|[\x21-\x7e]{8,}$/);
        // Where the printed credentials are used.
        assertMatch(s.banner, /Agent inbox:\s+http:\/\/\S+\/inbox /);
        assertMatch(s.banner, /Dashboard:\s+http:\/\/\S+\/dashboard /);
        const r = await http(s.url, "POST", "/api/v1/chatbots/demo-bot/messages", {
          token,
          body: { message: "What is Parley?", visitor_id: "first-run" },
        });
        assertEquals(r.status, 200, r.text);
        assertEquals(r.body.reply.content, "Hello from the stub model.");
        assertEquals(fake.requests.at(-1)!.authorization, "Bearer none", "no key was stored");
        assertMatch(fake.requests.at(-1)!.messages[0]!.content, /self-hostable/, "demo knowledge");

        const stream = await postStream(s.url, "demo-bot", {
          visitor_id: "first-run-widget",
          message: "Hello?",
        });
        assertEquals(stream.events.map((e) => e.event).at(-1), "done", stream.text);
        const text = stream.events.filter((e) => e.event === "delta").map((e) => e.data.delta);
        assertEquals(text.join(""), "Hello from the stub model.");
        // The tRPC door reads request.signal: no legacy-abort warning from Deno (issue 39).
        assertEquals((await http(s.url, "GET", "/trpc/system.status")).status, 200);
        await new Promise((r) => setTimeout(r, 200));
        assertOk(!s.stderr().includes("request.signal"), s.stderr());

        const second = await task(["start"], { ...env, AI_BASE_URL: fake.baseUrl }).output();
        assertEquals(second.code, 1);
        const lines = new TextDecoder().decode(second.stderr).trim().split("\n")
          .filter((l) => !l.startsWith("Task start")); // deno task's own echo of the command
        assertEquals(lines.length, 1, lines.join("\n"));
        assertMatch(lines[0]!, /^The embedded database in .* is in use by another process/);
      } finally {
        const said = await s.stop();
        // Ctrl-C is not met with silence.
        assertMatch(said, /Stopping Parley/);
        assertMatch(said, /Parley stopped\./);
      }
    });

    await t.step("a key stored with the CLI is used on the next start", async () => {
      const set = await task(["admin", "key:set", "demo", "provider_1", "sk-first-run-4242"], env)
        .output();
      assertEquals(set.code, 0, new TextDecoder().decode(set.stderr));
      const stored = JSON.parse(new TextDecoder().decode(set.stdout));
      assertEquals([stored.last_four, stored.configured], ["4242", true]);
      const s = await start({ ...env, AI_BASE_URL: fake.baseUrl });
      try {
        assertEquals(s.token, null, "the token is shown on the first start only");
        const r = await http(s.url, "POST", "/api/v1/chatbots/demo-bot/messages", {
          token,
          body: { message: "And now?", visitor_id: "first-run" },
        });
        assertEquals(r.status, 200, r.text);
        assertEquals(fake.requests.at(-1)!.authorization, "Bearer sk-first-run-4242");
      } finally {
        await s.stop();
      }
    });

    await t.step("without any model the banner says how to give one", () => {
      const none = { aiBaseUrl: null, aiApiKey: null, keysStored: false };
      const text = banner("http://localhost:8080", null, none);
      assertMatch(text, /deno task admin key:set demo provider_1 <key>/);
      assertMatch(text, /AI_API_KEY=<key> or AI_BASE_URL=<OpenAI-compatible URL>/);
      const keyed = banner("http://localhost:8080", null, { ...none, keysStored: true });
      assertMatch(keyed, /AI models:\s+the workspaces' stored provider keys/);
      assertOk(!keyed.includes("key:set"));
    });
  } finally {
    await fake.close();
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});
