/// <reference lib="dom" />
/**
 * The page an invitation link opens (`/dashboard#/invitation/<secret>`), no
 * sign-in needed: it shows the workspace and role, the invitee chooses a name
 * and a password, and is then signed in where that role works (the inbox for
 * an agent, the dashboard otherwise: the session is stored as each app's own
 * sign-in stores it), with a word of which workspace they joined.
 */
import type { DashboardClient } from "../../clients/dashboard_client.ts";
import { h } from "../../inbox/src/dom.ts";
import { saveSession as saveInboxSession } from "../../inbox/src/session_store.ts";
import { saveSession as saveDashboardSession } from "./session_store.ts";
import { errorLine, failureText, field, showFieldErrors } from "./ui.ts";

const page = (...children: HTMLElement[]) =>
  h("div", { class: "login-wrap" }, h("div", { class: "login" }, ...children));

export async function invitationView(client: DashboardClient, token: string): Promise<HTMLElement> {
  let offer: { workspace: string; email: string; role: string };
  try {
    offer = await client.readInvitation.mutate({ token });
  } catch (err) {
    return page(h("h1", null, "Invitation"), h("p", { role: "alert" }, failureText(err)));
  }
  const name = h("input", { name: "name", autocomplete: "name", required: true, maxlength: 120 });
  // The address is the invitation's: shown, and given to password managers with the new password.
  const email = h("input", {
    type: "email",
    name: "email",
    autocomplete: "username",
    readonly: true,
    value: offer.email,
  });
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "new-password",
    required: true,
    minlength: 8,
  });
  const error = errorLine();
  const submit = h("button", { type: "submit", class: "primary" }, "Join");
  const wrap = h("div", { class: "login-wrap" });
  const form: HTMLFormElement = h(
    "form",
    {
      class: "login",
      onSubmit: async (e) => {
        e.preventDefault();
        submit.disabled = true;
        try {
          const done = await client.acceptInvitation.mutate({
            token,
            name: name.value,
            password: password.value,
          });
          if (done.agent_session) saveInboxSession(done.agent_session);
          if (done.dashboard_session) saveDashboardSession(done.dashboard_session);
          const place = done.sign_in_at === "/inbox" ? "inbox" : "dashboard";
          wrap.replaceChildren(
            h(
              "div",
              { class: "login", role: "status" },
              h("h1", null, `Welcome to ${done.workspace}`),
              h(
                "p",
                null,
                done.two_factor_setup_required
                  ? `You joined ${done.workspace} as ${done.role}. ${done.workspace} requires two-factor sign-in: sign in as ${done.email} with your new password to set it up.`
                  : `You joined ${done.workspace} as ${done.role}, and you are signed in as ${done.email}.`,
              ),
              h(
                "a",
                { class: "button primary", href: done.sign_in_at },
                done.two_factor_setup_required ? `Sign in to the ${place}` : `Open the ${place}`,
              ),
            ),
          );
          // The spent secret leaves the address bar (and the history).
          history.replaceState(null, "", location.pathname);
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
          submit.disabled = false;
        }
      },
    },
    h("h1", null, `Join ${offer.workspace}`),
    h("p", null, `You were invited to ${offer.workspace} as ${offer.role}.`),
    field("E-mail", email),
    field("Your name", name),
    field("Choose a password", password, "At least 8 characters."),
    error,
    submit,
  );
  wrap.append(form);
  return wrap;
}
