/// <reference lib="dom" />
/**
 * Password reset in both apps' sign-in pages: the "Forgot password?" form
 * (one answer whatever the address, or who can help when the server has no
 * SMTP) and the page a reset link opens (`#/reset/<secret>`).
 */
import type { DashboardClient } from "../../clients/dashboard_client.ts";
import { describeFailure } from "../../clients/agent_client.ts";
import { h } from "./dom.ts";

export type ResetApi = Pick<DashboardClient, "forgotPassword" | "resetPassword">;

function failure(err: unknown): string {
  const f = describeFailure(err);
  return f.errors ? Object.values(f.errors).flat().join(" ") : f.message;
}

/** A "Forgot password?" link that opens the request form in place. */
export function forgotPasswordLink(api: ResetApi, app: "dashboard" | "inbox"): HTMLElement {
  const holder = h("div", { class: "forgot" });
  const open = h("button", {
    type: "button",
    class: "link",
    onClick: () => holder.replaceChildren(forgotForm(api, app)),
  }, "Forgot password?");
  holder.append(open);
  return holder;
}

function forgotForm(api: ResetApi, app: "dashboard" | "inbox"): HTMLElement {
  const email = h("input", {
    type: "email",
    name: "email",
    autocomplete: "username",
    required: true,
  });
  const line = h("p", { class: "form-note", role: "status" });
  const send = h("button", { type: "submit" }, "Send reset link");
  queueMicrotask(() => email.focus());
  return h(
    "form",
    {
      class: "forgot-form",
      "aria-label": "Forgot password",
      onSubmit: async (e) => {
        e.preventDefault();
        send.disabled = true;
        try {
          line.textContent = (await api.forgotPassword.mutate({ email: email.value, app })).message;
        } catch (err) {
          line.textContent = failure(err);
        } finally {
          send.disabled = false;
        }
      },
    },
    h("label", null, "Your e-mail", email),
    send,
    line,
  );
}

/** The page a reset link opens: choose a new password, then sign in. */
export function resetPasswordView(api: ResetApi, secret: string, title: string): HTMLElement {
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "new-password",
    minlength: 8,
    required: true,
  });
  const line = h("p", { class: "form-error", role: "alert" });
  const save = h("button", { type: "submit", class: "primary" }, "Set new password");
  const form: HTMLFormElement = h(
    "form",
    {
      class: "login reset",
      onSubmit: async (e) => {
        e.preventDefault();
        save.disabled = true;
        line.textContent = "";
        try {
          const r = await api.resetPassword.mutate({ token: secret, password: password.value });
          form.replaceChildren(
            h("h1", null, title),
            h("p", { role: "status" }, `${r.message} (${r.email})`),
            h("a", { href: r.sign_in_at, class: "primary-link" }, "Sign in"),
          );
        } catch (err) {
          line.textContent = failure(err);
          save.disabled = false;
        }
      },
    },
    h("h1", null, title),
    h("p", { class: "muted" }, "Choose a new password. Every session of your account ends."),
    h("label", null, "New password (8 characters or more)", password),
    line,
    save,
  );
  return h("div", { class: "login-wrap" }, form);
}
