/// <reference lib="dom" />
/**
 * The web inbox's entry (`/inbox/app.js`): signs the agent in (or resumes
 * the session kept in localStorage) and mounts the inbox.
 */
import { createAgentClient, type TokenSession } from "../../clients/agent_client.ts";
import { InboxApp } from "./app.ts";
import { loginView } from "./login_view.ts";
import { clearSession, loadSession, saveSession } from "./session_store.ts";
import { fill } from "./dom.ts";
import { resetPasswordView } from "./password_reset_view.ts";

const root = document.getElementById("app")!;
/** Null when the server has no realtime socket: the inbox polls instead. */
const realtimeKey =
  document.querySelector<HTMLMetaElement>('meta[name="parley-realtime-key"]')?.content ?? null;
/** The socket server's `ws(s)://` address (REALTIME_URL). */
const realtimeUrl =
  document.querySelector<HTMLMetaElement>('meta[name="parley-realtime-url"]')?.content ?? null;
let session: TokenSession | null = loadSession();

const client = createAgentClient({
  baseUrl: location.origin,
  token: () => session?.token ?? null,
  timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
});

function signIn(notice: string | null): void {
  session = null;
  clearSession();
  fill(
    root,
    loginView(client, notice, (s) => {
      session = s;
      saveSession(s);
      mount(s);
    }),
  );
}

function mount(s: TokenSession): void {
  const app = new InboxApp({
    root,
    client,
    session: s,
    setSession: (fresh) => {
      session = fresh;
    },
    realtimeKey,
    realtimeUrl,
    onSignedOut: signIn,
  });
  void app.start();
}

// A password reset link opens its own page, signed in or not (docs/accounts.md).
const reset = /^#\/reset\/(.+)$/.exec(location.hash)?.[1];
if (reset) fill(root, resetPasswordView(client.dashboard, reset, "Parley inbox"));
else if (session) mount(session);
else signIn(null);
