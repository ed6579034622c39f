/**
 * The agent CLI as its users run it: `deno task agent …` in a subprocess
 * against a real server. Login stores the token with mode 600; inbox, open,
 * reply, the ownership commands; `--json`; one-line errors and the
 * documented exit codes; `tail` printing the event a widget message causes.
 */
import { assertEquals, assertMatch, assertOk } from "../helpers/assert.ts";
import { serverTestOptions, startTestServer } from "../helpers/test_server.ts";
import { EMAIL, PASSWORD, standardSeed, T } from "../helpers/fixtures.ts";
import { http } from "../helpers/http.ts";
import { startFakeAi } from "../helpers/fake_ai.ts";
import { freshIp, postStream, WIDGET_ENV } from "../widget/widget_client.ts";
import { totpCode } from "../helpers/totp.ts";

const ROOT = new URL("../../", import.meta.url).pathname;

const fake = startFakeAi({ reply: "Happy to help." });
const s = await startTestServer({
  seed: standardSeed(),
  env: { ...WIDGET_ENV, AI_BASE_URL: fake.baseUrl },
});
const dir = await Deno.makeTempDir({ prefix: "parley-agent-cli-" });
const CONFIG = `${dir}/conf/parley/agent.json`;

function command(args: string[], env: Record<string, string> = {}) {
  return new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "agent", ...args],
    cwd: ROOT,
    env: { PARLEY_AGENT_CONFIG: CONFIG, NO_COLOR: "1", ...env },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
}

async function agent(args: string[], env: Record<string, string> = {}) {
  const out = await command(args, env).output();
  const dec = new TextDecoder();
  // On a machine whose Deno cache is cold, Deno itself reports the packages it fetches first.
  const stderr = dec.decode(out.stderr).replace(/^Download https?:\/\/\S+\n/gm, "");
  return { code: out.code, stdout: dec.decode(out.stdout), stderr };
}

async function startConversation(message: string): Promise<string> {
  const visitor = `v_cli_${crypto.randomUUID().slice(0, 8)}`;
  const r = await postStream(s.url, "acme-helper", { visitor_id: visitor, message });
  assertEquals(r.status, 200);
  return r.events[0]!.data.conversation_id as string;
}

Deno.test("agent CLI", serverTestOptions, async (t) => {
  try {
    await t.step("help, unknown commands and missing sign-in have their exit codes", async () => {
      const help = await agent(["help"]);
      assertEquals(help.code, 0);
      assertMatch(help.stdout, /Exit codes: 0 ok/);
      const unknown = await agent(["frobnicate"]);
      assertEquals(unknown.code, 2);
      assertEquals(unknown.stderr.trim().split("\n").length, 1);
      assertMatch(unknown.stderr, /Unknown command "frobnicate"/);
      const none = await agent(["inbox"]);
      assertEquals([none.code, none.stderr.trim()], [
        3,
        'error: Not signed in. Run "login" first.',
      ]);
    });

    await t.step("a wrong password is one line and exit 3; nothing is stored", async () => {
      const r = await agent(["login", "--server", s.url, "--email", EMAIL.acmeAgent], {
        PARLEY_PASSWORD: "wrong password",
      });
      assertEquals(r.code, 3);
      assertEquals(r.stderr.trim(), "error: These credentials do not match our records.");
      await Deno.stat(CONFIG).then(() => assertOk(false, "config written"), () => {});
    });

    await t.step("login stores the token in a file only its owner can read", async () => {
      const r = await agent([
        "login",
        "--server",
        `${s.url}/`,
        "--email",
        EMAIL.acmeAgent,
        "--json",
      ], {
        PARLEY_PASSWORD: PASSWORD,
      });
      assertEquals(r.code, 0, r.stderr);
      const body = JSON.parse(r.stdout);
      assertEquals([body.user.name, body.company.name, body.server], [
        "Amy Agent",
        "Acme Inc",
        s.url,
      ]);
      assertEquals(body.token, undefined); // never printed
      assertEquals((await Deno.stat(CONFIG)).mode! & 0o777, 0o600);
      const stored = JSON.parse(await Deno.readTextFile(CONFIG));
      const me = await http(s.url, "GET", "/api/agent/me", { token: stored.session.token });
      assertEquals([me.status, me.body.device_name], [200, `Agent CLI (${Deno.hostname()})`]);
    });

    const id = await startConversation("Where is my parcel?");

    await t.step("inbox lists the visitor's conversation, in text and JSON", async () => {
      const text = await agent(["inbox", "--filter", "ai"]);
      assertEquals(text.code, 0, text.stderr);
      // The words of docs/vocabulary.md, as the web inbox's tabs say them.
      assertMatch(
        text.stdout,
        /^Waiting for a human \d+ · With you \d+ · With a teammate \d+ · With the AI \d+ · Resolved \d+/,
      );
      assertOk(text.stdout.includes(id));
      assertOk(text.stdout.includes("Happy to help."));
      const json = await agent(["inbox", "--json"]);
      const view = JSON.parse(json.stdout);
      assertOk(view.conversations.some((r: { id: string }) => r.id === id));
      assertEquals(view.list_limit, 60);
      const bad = await agent(["inbox", "--filter", "nope"]);
      assertEquals(bad.code, 2);
      assertMatch(bad.stderr, /--filter must be one of all, waiting/);
    });

    await t.step("reply by the id's beginning takes the conversation over", async () => {
      const r = await agent(["reply", id.slice(0, 8), "On", "its", "way!", "--json"]);
      assertEquals(r.code, 0, r.stderr);
      const body = JSON.parse(r.stdout);
      assertEquals([body.conversation, body.message.content, body.duplicate], [
        id,
        "On its way!",
        false,
      ]);
      const again = await agent(["reply", id, "Same text", "--client-id", "cli-1"]);
      assertEquals(again.code, 0, again.stderr);
      const dup = await agent(["reply", id, "Same text", "--client-id", "cli-1"]);
      assertMatch(dup.stdout, /^Already sent to /);
      const active = (await http(s.url, "GET", `/api/agent/conversations/${id}`, {
        token: T.acme.agent.agent,
      })).body.active;
      assertEquals(active.status, "agent");
      assertEquals(active.messages.filter((m: { role: string }) => m.role === "agent").length, 2);
      const open = await agent(["open", id]);
      assertMatch(open.stdout, /agent +On its way!/);
      assertMatch(open.stdout, /visitor +Where is my parcel\?/);
    });

    await t.step("ownership commands; a refused one is exit 1, an unknown id exit 4", async () => {
      // In the web inbox's words (docs/vocabulary.md); --json keeps the API's status.
      assertEquals((await agent(["release", id])).stdout.trim(), `${id}: With the AI`);
      assertEquals((await agent(["takeover", id])).stdout.trim(), `${id}: With you`);
      const resolved = await agent(["resolve", id, "--json"]);
      assertEquals(JSON.parse(resolved.stdout), {
        conversation: id,
        status: "closed",
        resolution: "resolved",
      });
      const refused = await agent(["takeover", id]);
      assertEquals(refused.code, 1);
      assertEquals(refused.stderr.trim().split("\n").length, 1);
      assertEquals((await agent(["reopen", id])).stdout.trim(), `${id}: With the AI`);
      const unknown = await agent(["open", crypto.randomUUID(), "--json"]);
      assertEquals(unknown.code, 4);
      assertEquals(JSON.parse(unknown.stderr).status, 404);
      assertEquals((await agent(["open"])).code, 2);
    });

    await t.step("tail prints the event a widget message causes", async () => {
      await tailUntil(["tail"], {}, (lines, fresh) => {
        // Over the realtime socket: the visitor's message itself, and nothing from polling.
        const message = `message.created ${fresh} visitor: Do you ship?`;
        const created = `conversation.created ${fresh}`;
        if (!lines.some((l) => l.includes(message)) || !lines.some((l) => l.includes(created))) {
          return false;
        }
        assertOk(lines.every((l) => !l.includes(id)), "nothing about quiet conversations");
        // The web inbox's section word, not the API's status.
        assertOk(
          lines.some((l) => l.includes(created) && l.includes("(With the AI)")),
          lines.join("\n"),
        );
        assertOk(lines.every((l) => !l.includes("via poll")), lines.join("\n"));
        return true;
      });
    });

    await t.step("an agent running tail is online for visitors; after Ctrl-C not", async () => {
      const visitor = "v_cli_online";
      const r = await postStream(s.url, "acme-helper", { visitor_id: visitor, message: "Hi" });
      const conversation = r.events[0]!.data.conversation_id as string;
      const online = async () =>
        (await http(s.url, "POST", "/widget/acme-helper/handoff", {
          headers: freshIp(),
          body: { visitor_id: visitor, conversation_id: conversation },
        })).body.agents_online as boolean;
      assertEquals(await online(), false);
      const tailing = spawnTail(["tail"]);
      try {
        await until(() => tailing.err.join("\n").includes("Following Acme"), "tail to start");
        let yes = false;
        const end = Date.now() + 10_000;
        while (!yes && Date.now() < end) yes = await online();
        assertOk(yes, "tail's agent counted online");
      } finally {
        await tailing.stop("SIGINT");
      }
      let no = false;
      const end = Date.now() + 10_000;
      while (!no && Date.now() < end) no = !(await online());
      assertOk(no, "offline once tail stopped");
    });

    await t.step("tail: a visitor's arrival is one readable line, heartbeats no more", async () => {
      const tailing = spawnTail(["tail"]);
      const visitor = `v_seen_${crypto.randomUUID().slice(0, 8)}`;
      const beat = () =>
        http(s.url, "POST", "/widget/acme-helper/heartbeat", {
          headers: freshIp(),
          body: { visitor_id: visitor, chat_open: false, page_url: "https://acme.test/pricing" },
        });
      try {
        await until(() => tailing.err.join("\n").includes("Following Acme"), "tail to start");
        assertEquals((await beat()).status, 200);
        assertEquals((await beat()).status, 200);
        const line = `visitor.seen visitor ${visitor} arrived on https://acme.test/pricing`;
        await until(() => tailing.out.some((l) => l.includes(line)), "the arrival line");
        // The second heartbeat is news to --json only.
        await new Promise((r) => setTimeout(r, 500));
        const about = tailing.out.filter((l) => l.includes(visitor));
        assertEquals(about.length, 1, about.join("\n"));
        assertOk(tailing.out.every((l) => !l.includes("{")), "no raw JSON in human mode");
      } finally {
        await tailing.stop("SIGINT");
      }
    });

    await t.step("with the socket refused, tail polls the inbox instead", async () => {
      const env = { PARLEY_AGENT_CONFIG: `${dir}/other.json`, PARLEY_PASSWORD: PASSWORD };
      const login = await agent(
        ["login", "--server", s.url, "--email", EMAIL.acmeAdmin, "--realtime-key", "no-such-key"],
        env,
      );
      assertEquals(login.code, 0, login.stderr);
      await tailUntil(
        ["tail", "--poll-ms", "500", "--json"],
        env,
        (lines, fresh) =>
          lines.map((l) => JSON.parse(l)).some((e) =>
            e.event === "conversation.created" && e.via === "poll" && e.data.id === fresh
          ),
      );
    });

    await t.step("logout revokes the token and forgets it", async () => {
      const stored = JSON.parse(await Deno.readTextFile(CONFIG));
      assertEquals((await agent(["logout"])).code, 0);
      await Deno.stat(CONFIG).then(() => assertOk(false, "config kept"), () => {});
      const me = await http(s.url, "GET", "/api/agent/me", { token: stored.session.token });
      assertEquals(me.status, 401);
    });

    await t.step("with two-factor on, login asks for the code; a recovery code works", async () => {
      // The agent turns two-factor on through the API, as the inbox would.
      const setup = await http(s.url, "POST", "/api/agent/account/two-factor/setup", {
        token: T.acme.agent.agent,
        body: {},
      });
      assertEquals(setup.status, 200, setup.text);
      const confirm = await http(s.url, "POST", "/api/agent/account/two-factor/confirm", {
        token: T.acme.agent.agent,
        body: { code: totpCode(setup.body.secret) },
      });
      assertEquals(confirm.status, 200, confirm.text);
      const login = ["login", "--server", s.url, "--email", EMAIL.acmeAgent];
      // No code to give (stdin closed): one line, exit 3, nothing stored.
      const none = await agent(login, { PARLEY_PASSWORD: PASSWORD });
      assertEquals(none.code, 3, none.stderr);
      assertMatch(none.stderr, /two-factor sign-in: give the code/);
      await Deno.stat(CONFIG).then(() => assertOk(false, "config written"), () => {});
      const wrong = await agent([...login, "--code", "000000"], { PARLEY_PASSWORD: PASSWORD });
      assertEquals(wrong.code, 3, wrong.stderr);
      const ok = await agent(login, {
        PARLEY_PASSWORD: PASSWORD,
        PARLEY_TOTP_CODE: confirm.body.recovery_codes[0],
      });
      assertEquals(ok.code, 0, ok.stderr);
      const stored = JSON.parse(await Deno.readTextFile(CONFIG));
      const me = await http(s.url, "GET", "/api/agent/me", { token: stored.session.token });
      assertEquals(me.status, 200);
    });
  } finally {
    await s.stop();
    await fake.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** `tail` in the background: its lines so far, and a stop as Ctrl-C (exit 0). */
function spawnTail(args: string[], env: Record<string, string> = {}) {
  const child = command(args, env).spawn();
  const out: string[] = [];
  const err: string[] = [];
  const collect = async (stream: ReadableStream<Uint8Array>, into: string[]) => {
    const dec = new TextDecoder();
    let partial = "";
    for await (const chunk of stream) {
      const parts = (partial + dec.decode(chunk, { stream: true })).split("\n");
      partial = parts.pop()!;
      into.push(...parts.filter(Boolean));
    }
  };
  const reading = Promise.all([collect(child.stdout, out), collect(child.stderr, err)]);
  return {
    out,
    err,
    async stop(signal: Deno.Signal = "SIGTERM") {
      child.kill(signal);
      const status = await child.status;
      await reading;
      assertEquals(status.code, 0, err.join("\n"));
    },
  };
}

/** Runs `tail`, starts a conversation once it follows, and waits until `done` says so. */
async function tailUntil(
  args: string[],
  env: Record<string, string>,
  done: (lines: string[], fresh: string) => boolean,
) {
  const tailing = spawnTail(args, env);
  try {
    // With --json nothing is printed until an event; give it time to read the inbox first.
    if (args.includes("--json")) await new Promise((r) => setTimeout(r, 2000));
    else {await until(() =>
        tailing.err.some((l) => l.startsWith("Following Acme")), "tail to start");}
    const fresh = await startConversation("Do you ship?");
    await until(() => done(tailing.out, fresh), `tail's line about ${fresh}`);
  } finally {
    await tailing.stop();
  }
}

async function until(check: () => boolean, what: string, ms = 15_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}
