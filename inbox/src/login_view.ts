/// <reference lib="dom" />
/** The sign-in form: the agent login (`agent.login`), nothing stored but the session it returns. */
import {
  type AgentClient,
  describeFailure,
  type TokenSession,
} from "../../clients/agent_client.ts";
import { h } from "./dom.ts";

export function loginView(
  client: AgentClient,
  notice: string | null,
  onSignedIn: (s: TokenSession) => void,
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
  const error = h("p", { class: "form-error", role: "alert" }, notice ?? "");
  const submit = h("button", { type: "submit", class: "primary" }, "Sign in");
  const form = h(
    "form",
    {
      class: "login",
      onSubmit: async (e) => {
        e.preventDefault();
        submit.disabled = true;
        error.textContent = "";
        try {
          onSignedIn(
            await client.agent.login.mutate({
              email: email.value,
              password: password.value,
              device_name: "Web inbox",
            }),
          );
        } catch (err) {
          const f = describeFailure(err);
          error.textContent = f.errors ? Object.values(f.errors).flat().join(" ") : f.message;
          submit.disabled = false;
        }
      },
    },
    h("h1", null, "Parley inbox"),
    h("label", null, "E-mail", email),
    h("label", null, "Password", password),
    error,
    submit,
  );
  queueMicrotask(() => email.focus());
  return h("div", { class: "login-wrap" }, form);
}
