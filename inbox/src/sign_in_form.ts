/// <reference lib="dom" />
/**
 * The e-mail and password form both browser apps sign in with (the inbox and
 * the dashboard): it submits once at a time, and shows a refusal's field
 * errors, or its message, in an alert under the fields.
 */
import type { CallFailure } from "../../clients/agent_client.ts";
import { h } from "./dom.ts";
import { type SecondStep, secondStepForm, signInStepOf } from "./two_factor_parts.ts";

type SignInFailure = CallFailure;

export interface SignInFormOptions<S = unknown> {
  title: string;
  /** Shown above the error line when the form opens (a session that ended). */
  notice: string | null;
  /** Signs in; a throw is shown through `describe`. */
  submit(email: string, password: string): Promise<void>;
  describe(err: unknown): SignInFailure;
  /** Extra content after a refusal's text (a link elsewhere). */
  afterError?(failure: SignInFailure): Node | null;
  /** What sits between the title and the fields, and under the button. */
  intro?: Node;
  footer?: Node;
  /** Two-factor sign-in: a login answered with a challenge continues here. */
  secondStep?: SecondStep<S>;
}

export function signInForm<S>(o: SignInFormOptions<S>): HTMLElement {
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
  const error = h("p", { class: "form-error", role: "alert" }, o.notice ?? "");
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
          await o.submit(email.value, password.value);
        } catch (err) {
          const step = o.secondStep ? signInStepOf(err) : null;
          if (step && o.secondStep) {
            form.replaceWith(secondStepForm(step, o.secondStep, (e) => o.describe(e).message));
            return;
          }
          const f = o.describe(err);
          error.append(f.errors ? Object.values(f.errors).flat().join(" ") : f.message);
          const extra = o.afterError?.(f);
          if (extra) error.append(" ", extra);
          submit.disabled = false;
        }
      },
    },
    h("h1", null, o.title),
    ...(o.intro ? [o.intro] : []),
    h("label", null, "E-mail", email),
    h("label", null, "Password", password),
    error,
    submit,
    ...(o.footer ? [o.footer] : []),
  );
  queueMicrotask(() => email.focus());
  return h("div", { class: "login-wrap" }, form);
}
