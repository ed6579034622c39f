/**
 * The agent companion CLI (`deno task agent <command>`, or dist/parley-agent
 * from `deno task compile`): an agent's inbox from a terminal, over the same
 * typed tRPC client as the web inbox. Lines for people, `--json` for
 * scripts; failures are one line on stderr with an exit code from
 * docs/agent-cli.md.
 */
import {
  type AgentClient,
  createAgentClient,
  describeFailure,
  FILTERS,
  type InboxFilter,
  tokenNeedsRefresh,
} from "../clients/agent_client.ts";
import { parseArgs, type ParsedArgs } from "./args.ts";
import {
  configPath,
  readStored,
  removeStored,
  type StoredSession,
  writeStored,
} from "./agent/config_store.ts";
import { conversationText, filterWords, inboxText, sectionWord } from "./agent/output.ts";
import { tail } from "./agent/tail.ts";

export const EXIT = {
  ok: 0,
  refused: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  unreachable: 5,
} as const;

/** A failure with its exit code; printed as one line. */
export class CliError extends Error {
  constructor(message: string, readonly code: number, readonly status: number | null = null) {
    super(message);
  }
}

export interface CliIo {
  env: Record<string, string | undefined>;
  out(line: string): void;
  err(line: string): void;
  /** The password for `login` when neither PARLEY_PASSWORD nor --password-stdin gives one. */
  readSecret(prompt: string): Promise<string | null>;
  readStdin(): Promise<string>;
  /** Resolves when `tail` should stop. */
  interrupted: Promise<void>;
}

const HELP = `Parley agent CLI: deno task agent <command> [arguments] [--json]

  login --server <url> --email <e-mail> [--password-stdin] [--device <name>] [--realtime-key <key>]
        [--code <code>]
        Signs in (password from PARLEY_PASSWORD, stdin, or a prompt) and stores the token. With
        two-factor sign-in on, the code (or a recovery code) from --code, PARLEY_TOTP_CODE or a
        prompt.
  logout                    Revokes the stored token and forgets it.
  whoami                    The signed-in agent and workspace.
  inbox [--filter <f>]      The inbox: counts and rows (f: ${FILTERS.join(", ")};
                            ${filterWords()}).
  open <conversation>       A conversation's messages and notes (an id or its unique beginning).
  reply <conversation> <text…> [--client-id <id>]
                            Replies to the visitor (takes the conversation over).
  takeover | release | resolve | reopen <conversation>
                            Changes who owns the conversation.
  tail [--poll-ms <n>]      Follows the inbox live, one line per event (Ctrl-C stops).
  help                      This text.

Every command takes --json (JSON on stdout, errors as {"error", "status"} on stderr).
Exit codes: 0 ok, 1 refused by the server, 2 usage, 3 not signed in or session ended,
4 not found, 5 server unreachable.`;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function runAgentCli(argv: string[], io: CliIo): Promise<number> {
  const json = argv.includes("--json");
  const args = parseArgs(argv.filter((a) => a !== "--json" && a !== "--password-stdin"));
  const passwordStdin = argv.includes("--password-stdin");
  const name = args.positionals.shift();
  if (!name || name === "help" || args.flags.has("help")) {
    io.out(HELP);
    return name || args.flags.has("help") ? EXIT.ok : EXIT.usage;
  }
  const print = (value: unknown, text: string) => io.out(json ? JSON.stringify(value) : text);
  try {
    const command = COMMANDS[name];
    if (!command) throw usage(`Unknown command "${name}". Run "help" for the list.`);
    await command({ args, io, json, passwordStdin, print, path: configPath(io.env) });
    return EXIT.ok;
  } catch (err) {
    const e = err instanceof CliError ? err : fromCall(err);
    io.err(json ? JSON.stringify({ error: e.message, status: e.status }) : `error: ${e.message}`);
    return e.code;
  }
}

interface Run {
  args: ParsedArgs;
  io: CliIo;
  json: boolean;
  passwordStdin: boolean;
  print(value: unknown, text: string): void;
  path: string;
}

const usage = (message: string) => new CliError(message, EXIT.usage);

function fromCall(err: unknown): CliError {
  const f = describeFailure(err);
  const fields = f.errors ? ` (${Object.values(f.errors).flat().join(" ")})` : "";
  if (f.status === null) return new CliError(f.message, EXIT.unreachable);
  if (f.status === 401) {
    return new CliError(`${f.message} Sign in again with "login".`, EXIT.auth, 401);
  }
  if (f.status === 404) return new CliError(f.message, EXIT.notFound, 404);
  return new CliError(
    `${f.message}${fields === ` (${f.message})` ? "" : fields}`,
    EXIT.refused,
    f.status,
  );
}

function positional(args: ParsedArgs, what: string): string {
  const v = args.positionals.shift();
  if (!v) throw usage(`Missing ${what}.`);
  return v;
}

function option(args: ParsedArgs, name: string): string | undefined {
  const v = args.flags.get(name);
  if (v === true) throw usage(`The --${name} option needs a value.`);
  return v;
}

function clientFor(stored: StoredSession): AgentClient {
  return createAgentClient({
    baseUrl: stored.server,
    token: () => stored.session.token,
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
  });
}

/** The stored session, renewed through refresh once past half its life. */
async function signedIn(run: Run): Promise<{ stored: StoredSession; client: AgentClient }> {
  const stored = await readStored(run.path);
  if (!stored || Date.parse(stored.session.expires_at) <= Date.now()) {
    throw new CliError('Not signed in. Run "login" first.', EXIT.auth);
  }
  const client = clientFor(stored);
  if (tokenNeedsRefresh(stored.session.expires_at)) {
    try {
      stored.session = await client.agent.refresh.mutate({});
      await writeStored(run.path, stored);
    } catch (err) {
      if (describeFailure(err).status === 401) throw fromCall(err);
      // Refresh is limited per hour; the current token still works meanwhile.
    }
  }
  return { stored, client };
}

/** A full conversation id, or the one row of the inbox whose id begins with `ref`. */
async function resolveConversation(client: AgentClient, ref: string): Promise<string> {
  if (UUID.test(ref)) return ref.toLowerCase();
  if (!/^[0-9a-f-]{4,35}$/i.test(ref)) throw usage(`"${ref}" is not a conversation id.`);
  const [open, resolved] = await Promise.all([
    client.agent.inbox.query({ filter: "all" }),
    client.agent.inbox.query({ filter: "resolved" }),
  ]);
  const ids = [...new Set([...open.conversations, ...resolved.conversations].map((r) => r.id))]
    .filter((id) => id.startsWith(ref.toLowerCase()));
  if (ids.length === 1) return ids[0]!;
  if (ids.length === 0) {
    throw new CliError(`No conversation in the inbox begins with "${ref}".`, EXIT.notFound, 404);
  }
  throw usage(`"${ref}" matches ${ids.length} conversations; give more of the id.`);
}

/** The challenge a login answered instead of a session, if it asked for a second step. */
function secondStepOf(err: unknown): { kind: "code" | "setup"; challenge: string } | null {
  const data = (err as { data?: Record<string, unknown> } | null)?.data;
  if (typeof data?.challenge !== "string") return null;
  if (data.two_factor_required === true) return { kind: "code", challenge: data.challenge };
  if (data.two_factor_setup_required === true) return { kind: "setup", challenge: data.challenge };
  return null;
}

/** A code from the authenticator app (or a recovery code): --code, PARLEY_TOTP_CODE or a prompt. */
async function readTwoFactorCode(run: Run): Promise<string> {
  const given = option(run.args, "code") ?? run.io.env.PARLEY_TOTP_CODE;
  if (given) return given.trim();
  const typed = await run.io.readSecret("Two-factor code (or a recovery code): ");
  if (!typed) {
    throw new CliError(
      "This account has two-factor sign-in: give the code with --code, PARLEY_TOTP_CODE or at " +
        "the prompt.",
      EXIT.auth,
      401,
    );
  }
  return typed.trim();
}

async function readPassword(run: Run): Promise<string> {
  if (run.passwordStdin) return (await run.io.readStdin()).replace(/\r?\n$/, "");
  if (run.io.env.PARLEY_PASSWORD) return run.io.env.PARLEY_PASSWORD;
  const typed = await run.io.readSecret("Password: ");
  if (!typed) throw usage("No password given (PARLEY_PASSWORD, --password-stdin or the prompt).");
  return typed;
}

type Handler = (run: Run) => Promise<void>;

const ownership =
  (action: "takeover" | "release" | "resolve" | "reopen"): Handler => async (run) => {
    const { client } = await signedIn(run);
    const conversation = await resolveConversation(client, positional(run.args, "<conversation>"));
    const result = await client.agent[action].mutate({ conversation });
    run.print({ conversation, ...result }, `${conversation}: ${sectionWord(result.status)}`);
  };

const COMMANDS: Record<string, Handler> = {
  async login(run) {
    const server = option(run.args, "server") ?? run.io.env.PARLEY_SERVER;
    const email = option(run.args, "email");
    if (!server) throw usage("The --server option is required (e.g. https://support.example.com).");
    if (!email) throw usage("The --email option is required.");
    let base: string;
    try {
      const u = new URL(server);
      if (u.protocol !== "http:" && u.protocol !== "https:") throw new Error();
      base = u.origin;
    } catch {
      throw usage(`"${server}" is not an http(s) address.`);
    }
    const password = await readPassword(run);
    const client = createAgentClient({ baseUrl: base, token: () => null });
    const refused = (err: unknown): never => {
      const f = describeFailure(err);
      // A refused login is the end of the story, not a session to renew.
      if (f.status === 401 || f.status === 403) throw new CliError(f.message, EXIT.auth, f.status);
      throw err;
    };
    const session = await client.agent.login.mutate({
      email,
      password,
      device_name: option(run.args, "device") ?? `Agent CLI (${Deno.hostname()})`,
    }).catch(async (err) => {
      // An account with two-factor sign-in: the login's second step (docs/accounts.md).
      const step = secondStepOf(err);
      if (step?.kind === "code") {
        const code = await readTwoFactorCode(run);
        return await client.agent.loginTwoFactor.mutate({ challenge: step.challenge, code })
          .catch(refused);
      }
      if (step?.kind === "setup") {
        throw new CliError(
          "Your workspace requires two-factor sign-in: set it up by signing in to the web " +
            "inbox once, then sign in here again.",
          EXIT.auth,
          403,
        );
      }
      return refused(err);
    });
    const realtimeKey = option(run.args, "realtime-key") ?? run.io.env.PARLEY_REALTIME_KEY ??
      "parley";
    await writeStored(run.path, { server: base, realtime_key: realtimeKey, session });
    const { token: _token, ...shown } = session;
    run.print(
      { ...shown, server: base, config: run.path },
      `Signed in as ${session.user.name} (${session.user.role}) at ${session.company.name}. Token kept in ${run.path}.`,
    );
  },

  async logout(run) {
    const stored = await readStored(run.path);
    if (stored) {
      await clientFor(stored).agent.logout.mutate({}).catch((err) => {
        if (describeFailure(err).status === null) throw fromCall(err);
      });
      await removeStored(run.path);
    }
    run.print({ signed_out: true }, "Signed out.");
  },

  async whoami(run) {
    const { stored, client } = await signedIn(run);
    const me = await client.agent.me.query({});
    run.print(
      { ...me, server: stored.server },
      `${me.user.name} <${me.user.email}> (${me.user.role}) at ${me.company.name}, ${stored.server}; token until ${me.expires_at}`,
    );
  },

  async inbox(run) {
    const filter = option(run.args, "filter") ?? "all";
    if (!FILTERS.includes(filter as InboxFilter)) {
      throw usage(`--filter must be one of ${FILTERS.join(", ")}.`);
    }
    const { client } = await signedIn(run);
    const view = await client.agent.inbox.query({ filter: filter as InboxFilter });
    run.print(view, inboxText(view));
  },

  async open(run) {
    const { client } = await signedIn(run);
    const conversation = await resolveConversation(client, positional(run.args, "<conversation>"));
    const view = await client.agent.conversation.query({ conversation });
    if (!view.active) {
      throw new CliError(`No conversation ${conversation} in this workspace.`, EXIT.notFound, 404);
    }
    run.print(view.active, conversationText(view.active));
  },

  async reply(run) {
    const { client } = await signedIn(run);
    const conversation = await resolveConversation(client, positional(run.args, "<conversation>"));
    const body = run.args.positionals.join(" ");
    if (!body.trim()) throw usage("Missing <text> to send.");
    const result = await client.agent.reply.mutate({
      conversation,
      body,
      client_id: option(run.args, "client-id") ?? crypto.randomUUID(),
    });
    run.print(
      { conversation, ...result },
      `${result.duplicate ? "Already sent" : "Sent"} to ${conversation} at ${result.message.at}.`,
    );
  },

  takeover: ownership("takeover"),
  release: ownership("release"),
  resolve: ownership("resolve"),
  reopen: ownership("reopen"),

  async tail(run) {
    const { stored, client } = await signedIn(run);
    const pollMs = Number(option(run.args, "poll-ms") ?? 4000);
    if (!Number.isInteger(pollMs) || pollMs < 200 || pollMs > 600_000) {
      throw usage("--poll-ms must be a whole number of milliseconds, 200 to 600000.");
    }
    await tail({
      client,
      server: stored.server,
      realtimeKey: stored.realtime_key,
      workspaceId: stored.session.company.id,
      userId: stored.session.user.id,
      json: run.json,
      pollMs,
      write: run.io.out,
      ready: () => {
        if (!run.json) {
          run.io.err(`Following ${stored.session.company.name}'s inbox (Ctrl-C stops).`);
        }
      },
      stopped: run.io.interrupted,
    });
  },
};

/** Reads a line from the terminal without echoing it. */
async function readSecretFromTerminal(prompt: string): Promise<string | null> {
  if (!Deno.stdin.isTerminal()) return null;
  await Deno.stderr.write(new TextEncoder().encode(prompt));
  Deno.stdin.setRaw(true);
  const chars: number[] = [];
  const buf = new Uint8Array(1);
  try {
    while (true) {
      const n = await Deno.stdin.read(buf);
      if (n === null || buf[0] === 13 || buf[0] === 10) break;
      if (buf[0] === 3) return null; // Ctrl-C
      if (buf[0] === 127 || buf[0] === 8) chars.pop();
      else chars.push(buf[0]!);
    }
  } finally {
    Deno.stdin.setRaw(false);
    await Deno.stderr.write(new TextEncoder().encode("\n"));
  }
  return new TextDecoder().decode(new Uint8Array(chars));
}

if (import.meta.main) {
  const interrupted = new Promise<void>((resolve) => {
    Deno.addSignalListener("SIGINT", () => resolve());
    if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", () => resolve());
  });
  const code = await runAgentCli(Deno.args, {
    env: Deno.env.toObject(),
    out: (line) => console.log(line),
    err: (line) => console.error(line),
    readSecret: readSecretFromTerminal,
    readStdin: () => new Response(Deno.stdin.readable).text(),
    interrupted,
  });
  Deno.exit(code);
}
