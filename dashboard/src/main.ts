/// <reference lib="dom" />
/**
 * The dashboard's entry (`/dashboard/app.js`): signs the owner in (or resumes
 * the session kept in localStorage) and mounts the shell.
 */
import { createDashboardClient, type DashboardSession } from "../../clients/dashboard_client.ts";
import { fill } from "../../inbox/src/dom.ts";
import { DashboardShell } from "./shell.ts";
import { loginView } from "./login_view.ts";
import { clearSession, loadSession, saveSession } from "./session_store.ts";
import { invitationView } from "./invitation_view.ts";
import { resetPasswordView } from "../../inbox/src/password_reset_view.ts";

const root = document.getElementById("app")!;
const realtimeKey =
  document.querySelector<HTMLMetaElement>('meta[name="parley-realtime-key"]')?.content ?? null;
/** The socket server's `ws(s)://` address (REALTIME_URL). */
const realtimeUrl =
  document.querySelector<HTMLMetaElement>('meta[name="parley-realtime-url"]')?.content ?? null;
let session: DashboardSession | null = loadSession();
let shell: DashboardShell | null = null;

const client = createDashboardClient({
  baseUrl: location.origin,
  token: () => session?.token ?? null,
  onUnauthorized: () => signIn("Your session has ended. Sign in again."),
});

function signIn(notice: string | null): void {
  shell?.stop();
  shell = null;
  session = null;
  clearSession();
  document.title = "Dashboard · Parley";
  fill(
    root,
    loginView(client, notice, (s) => {
      session = s;
      saveSession(s);
      mount(s);
    }),
  );
}

function mount(s: DashboardSession): void {
  shell = new DashboardShell({
    root,
    client,
    session: s,
    realtimeKey,
    realtimeUrl,
    setSession: (fresh) => {
      session = fresh;
      saveSession(fresh);
    },
    onSignedOut: signIn,
  });
  shell.start();
}

// An invitation link opens its own page, signed in or not.
const invitation = /^#\/invitation\/(.+)$/.exec(location.hash)?.[1];
// So does a password reset link (docs/accounts.md).
const reset = /^#\/reset\/(.+)$/.exec(location.hash)?.[1];
if (reset) {
  document.title = "New password · Parley";
  fill(root, resetPasswordView(client, reset, "Parley dashboard"));
} else if (invitation) {
  document.title = "Invitation · Parley";
  void invitationView(client, invitation).then((view) => fill(root, view));
} else if (session) mount(session);
else signIn(null);
