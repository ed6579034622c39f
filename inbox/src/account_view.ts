/// <reference lib="dom" />
/**
 * A person's own account, one view shared by the dashboard (its "Your
 * account" screen) and the inbox (the Account panel): name and e-mail (a new
 * e-mail asks for the current password), password change (every other
 * session ends), and the signed-in devices, each endable. It speaks to the
 * account procedures (docs/accounts.md) through either app's client.
 */
import type { DashboardClient } from "../../clients/dashboard_client.ts";
import { type CallFailure, describeFailure } from "../../clients/agent_client.ts";
import { h } from "./dom.ts";

export type AccountApi = Pick<
  DashboardClient,
  | "accountProfile"
  | "updateAccountProfile"
  | "changeAccountPassword"
  | "listAccountSessions"
  | "endAccountSession"
  | "endOtherAccountSessions"
>;

const APP_LABEL = {
  dashboard: "Dashboard",
  inbox: "Web inbox",
  agent_app: "Agent app",
  portal: "Portal API",
} as const;

function failureText(f: CallFailure): string {
  return f.errors ? Object.values(f.errors).flat().join(" ") : f.message;
}

/** Puts each field error beside its input (`data-error-for`); returns the text for the form's line. */
function showErrors(form: HTMLElement, err: unknown): string {
  const f = describeFailure(err);
  for (const slot of form.querySelectorAll<HTMLElement>("[data-error-for]")) slot.textContent = "";
  const rest: string[] = [];
  for (const [name, messages] of Object.entries(f.errors ?? {})) {
    const slot = form.querySelector<HTMLElement>(`[data-error-for="${name}"]`);
    if (slot) slot.textContent = messages.join(" ");
    else rest.push(...messages);
  }
  return f.errors ? rest.join(" ") : failureText(f);
}

function labelled(label: string, input: HTMLInputElement): HTMLElement {
  return h(
    "label",
    { class: "field" },
    h("span", { class: "label" }, label),
    input,
    h("span", { class: "field-error", "data-error-for": input.name }),
  );
}

function input(name: string, type: string, autocomplete: string, value = ""): HTMLInputElement {
  return h("input", { name, type, autocomplete, value });
}

function profileForm(
  api: AccountApi,
  say: (t: string) => void,
  p: { name: string; email: string },
) {
  const name = input("name", "text", "name", p.name);
  const email = input("email", "email", "username", p.email);
  const current = input("current_password", "password", "current-password");
  const line = h("p", { class: "form-error", role: "alert" });
  const save = h("button", { type: "submit", class: "primary" }, "Save profile");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "account-profile",
      "aria-label": "Profile",
      onSubmit: async (e) => {
        e.preventDefault();
        save.disabled = true;
        line.textContent = "";
        try {
          const r = await api.updateAccountProfile.mutate({
            name: name.value,
            email: email.value,
            ...(current.value ? { current_password: current.value } : {}),
          });
          current.value = "";
          for (const s of form.querySelectorAll("[data-error-for]")) s.textContent = "";
          name.value = r.name;
          email.value = r.email;
          say("Profile saved.");
        } catch (err) {
          line.textContent = showErrors(form, err);
        } finally {
          save.disabled = false;
        }
      },
    },
    h("h2", null, "Profile"),
    labelled("Name", name),
    labelled("E-mail", email),
    labelled("Current password (needed to change your e-mail)", current),
    line,
    save,
  );
  return form;
}

function passwordForm(api: AccountApi, say: (t: string) => void, after: () => void) {
  const current = input("current_password", "password", "current-password");
  const next = input("password", "password", "new-password");
  next.minLength = 8;
  const line = h("p", { class: "form-error", role: "alert" });
  const save = h("button", { type: "submit", class: "primary" }, "Change password");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "account-password",
      "aria-label": "Password",
      onSubmit: async (e) => {
        e.preventDefault();
        save.disabled = true;
        line.textContent = "";
        try {
          const r = await api.changeAccountPassword.mutate({
            current_password: current.value,
            password: next.value,
          });
          current.value = next.value = "";
          for (const s of form.querySelectorAll("[data-error-for]")) s.textContent = "";
          say(`Password changed. ${r.sessions_ended} other session(s) signed out.`);
          after();
        } catch (err) {
          line.textContent = showErrors(form, err);
        } finally {
          save.disabled = false;
        }
      },
    },
    h("h2", null, "Password"),
    h("p", { class: "muted" }, "Changing it signs you out everywhere else; this window stays."),
    labelled("Current password", current),
    labelled("New password (8 characters or more)", next),
    line,
    save,
  );
  return form;
}

function when(iso: string | null): string {
  return iso ? new Date(iso).toLocaleString() : "—";
}

function sessionsSection(api: AccountApi, say: (t: string) => void) {
  const body = h("tbody");
  const load = async () => {
    const { data } = await api.listAccountSessions.query({});
    body.replaceChildren(...data.map((s) =>
      h(
        "tr",
        { "data-session": s.id, ...(s.current ? { "data-current": "true" } : {}) },
        h(
          "td",
          null,
          APP_LABEL[s.app],
          s.device_name && s.app !== "inbox" ? ` · ${s.device_name}` : "",
        ),
        h("td", null, when(s.last_used_at ?? s.signed_in_at)),
        h("td", null, s.ip ?? "—"),
        h(
          "td",
          null,
          s.current ? h("span", { class: "pill ready" }, "This session") : h("button", {
            type: "button",
            class: "danger",
            onClick: async () => {
              try {
                await api.endAccountSession.mutate({ session: s.id });
                say("Session ended.");
              } catch (err) {
                say(failureText(describeFailure(err)));
              }
              await load();
            },
          }, "End"),
        ),
      )
    ));
  };
  const endOthers = h("button", {
    type: "button",
    class: "danger",
    onClick: async () => {
      if (!confirm("Sign out every other session of yours?")) return;
      try {
        say((await api.endOtherAccountSessions.mutate({})).message);
      } catch (err) {
        say(failureText(describeFailure(err)));
      }
      await load();
    },
  }, "Sign out everywhere else");
  const section = h(
    "section",
    { class: "account-sessions", "aria-label": "Sessions" },
    h("h2", null, "Sessions"),
    h(
      "div",
      { class: "table-wrap" },
      h(
        "table",
        { class: "list" },
        h(
          "thead",
          null,
          h("tr", null, ["App", "Last used", "Address", ""].map((t) => h("th", null, t))),
        ),
        body,
      ),
    ),
    endOthers,
  );
  return { section, load };
}

/** The whole account view; `say` shows a short status line. */
export async function accountView(
  api: AccountApi,
  say: (text: string) => void,
): Promise<HTMLElement> {
  const [profile] = await Promise.all([api.accountProfile.query({})]);
  const sessions = sessionsSection(api, say);
  await sessions.load();
  return h(
    "div",
    { class: "account" },
    profileForm(api, say, profile),
    passwordForm(api, say, () => void sessions.load()),
    sessions.section,
  );
}
