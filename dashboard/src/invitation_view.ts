/// <reference lib="dom" />
/**
 * The page an invitation link opens (`/dashboard#/invitation/<secret>`), no
 * sign-in needed: it shows the workspace and role, the invitee chooses a name
 * and a password, and is sent to where that role signs in (/inbox for an
 * agent, /dashboard otherwise).
 */
import type { DashboardClient } from "../../clients/dashboard_client.ts";
import { h } from "../../inbox/src/dom.ts";
import { errorLine, failureText, field, showFieldErrors } from "./ui.ts";

export async function invitationView(client: DashboardClient, token: string): Promise<HTMLElement> {
  let offer: { workspace: string; email: string; role: string };
  try {
    offer = await client.readInvitation.mutate({ token });
  } catch (err) {
    return h(
      "div",
      { class: "login-wrap" },
      h(
        "div",
        { class: "login" },
        h("h1", null, "Invitation"),
        h("p", { role: "alert" }, failureText(err)),
      ),
    );
  }
  const name = h("input", { name: "name", autocomplete: "name", required: true, maxlength: 120 });
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "new-password",
    required: true,
    minlength: 8,
  });
  const error = errorLine();
  const submit = h("button", { type: "submit", class: "primary" }, "Join");
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
          location.assign(done.sign_in_at);
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
          submit.disabled = false;
        }
      },
    },
    h("h1", null, `Join ${offer.workspace}`),
    h("p", null, `You were invited as ${offer.role}, with the address ${offer.email}.`),
    field("Your name", name),
    field("Choose a password", password, "At least 8 characters."),
    error,
    submit,
  );
  return h("div", { class: "login-wrap" }, form);
}
