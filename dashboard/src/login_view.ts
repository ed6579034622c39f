/// <reference lib="dom" />
/**
 * The sign-in form (`dashboard.login`). A 403 for a right password (an agent)
 * says where to go instead and links to the inbox.
 */
import {
  type DashboardClient,
  type DashboardSession,
  describeFailure,
} from "../../clients/dashboard_client.ts";
import { h } from "../../inbox/src/dom.ts";

export function loginView(
  client: DashboardClient,
  notice: string | null,
  onSignedIn: (s: DashboardSession) => void,
): HTMLElement {
  const email = h("input", {
    type: "email",
    name: "email",
    autocomplete: "username",
    required: true,
  });
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "current-password",
    required: true,
  });
  const error = h("div", { class: "form-error", role: "alert" }, notice ?? "");
  const submit = h("button", { type: "submit", class: "primary" }, "Sign in");
  const form = h(
    "form",
    {
      class: "login",
      onSubmit: async (e) => {
        e.preventDefault();
        submit.disabled = true;
        error.replaceChildren();
        try {
          onSignedIn(await client.login.mutate({ email: email.value, password: password.value }));
        } catch (err) {
          const f = describeFailure(err);
          error.append(f.errors ? Object.values(f.errors).flat().join(" ") : f.message);
          if (f.status === 403 && /inbox/.test(f.message)) {
            error.append(" ", h("a", { href: "/inbox", class: "to-inbox" }, "Open the inbox"));
          }
          submit.disabled = false;
        }
      },
    },
    h("h1", null, "Parley dashboard"),
    h("p", { class: "muted" }, "For a workspace's owners, administrators and viewers."),
    h("label", null, "E-mail", email),
    h("label", null, "Password", password),
    error,
    submit,
    h(
      "p",
      { class: "muted small" },
      "Answering conversations? ",
      h("a", { href: "/inbox" }, "Go to the inbox"),
    ),
  );
  queueMicrotask(() => email.focus());
  return h("div", { class: "login-wrap" }, form);
}
