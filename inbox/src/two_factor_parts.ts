/// <reference lib="dom" />
/**
 * The pieces of two-factor sign-in both browser apps show: the secret to set
 * up (QR code and typed form), the recovery codes shown once, and the code
 * step of the sign-in form. The QR code arrives as SVG text and is shown as
 * an image from a data: URL, never inserted as markup.
 */
import { h } from "./dom.ts";

export interface Enrolment {
  secret: string;
  otpauth_uri: string;
  qr_svg: string;
}

/** The QR code to scan and the secret to type, grouped in fours for reading. */
export function enrolmentCard(e: Enrolment): HTMLElement {
  const typed = e.secret.replace(/(.{4})/g, "$1 ").trim();
  return h(
    "div",
    { class: "card two-factor-enrolment" },
    h(
      "p",
      null,
      "Scan this code with an authenticator app (1Password, Google Authenticator, Authy…), " +
        "or type the secret into it.",
    ),
    h("img", {
      class: "qr",
      alt: "QR code of the two-factor secret",
      width: 200,
      height: 200,
      src: `data:image/svg+xml;charset=utf-8,${encodeURIComponent(e.qr_svg)}`,
    }),
    h(
      "p",
      null,
      "Secret: ",
      h("code", { class: "two-factor-secret", "data-secret": e.secret }, typed),
    ),
  );
}

/** Ten recovery codes, shown once, with a copy button. */
export function recoveryCodesCard(codes: string[]): HTMLElement {
  const copy = h("button", {
    type: "button",
    onClick: async () => {
      await navigator.clipboard?.writeText(codes.join("\n")).catch(() => {});
      copy.textContent = "Copied";
    },
  }, "Copy codes");
  return h(
    "div",
    { class: "card shown-once recovery-codes", role: "status" },
    h(
      "p",
      null,
      "Recovery codes: each signs you in once if you lose your phone. Keep them somewhere " +
        "safe: they are not shown again.",
    ),
    h("ol", { class: "codes" }, ...codes.map((c) => h("li", null, h("code", null, c)))),
    copy,
  );
}

/** A six-digit code field (a recovery code fits too, when `allowRecovery`). */
export function codeInput(allowRecovery: boolean): HTMLInputElement {
  return h("input", {
    name: "code",
    inputmode: allowRecovery ? "text" : "numeric",
    autocomplete: "one-time-code",
    maxlength: allowRecovery ? 11 : 6,
    required: true,
    placeholder: allowRecovery ? "123456 or XXXXX-XXXXX" : "123456",
  });
}

/** What a login refusal asks for next, read from the error the client threw. */
export function signInStepOf(
  err: unknown,
): { kind: "verify" | "enrol"; challenge: string } | null {
  const data = (err as { data?: Record<string, unknown> } | null)?.data;
  if (!data || typeof data.challenge !== "string") return null;
  if (data.two_factor_required === true) return { kind: "verify", challenge: data.challenge };
  if (data.two_factor_setup_required === true) return { kind: "enrol", challenge: data.challenge };
  return null;
}

export interface SecondStep<S> {
  /** The login's second step; its answer is the session (and recovery codes after enrolment). */
  complete(challenge: string, code: string): Promise<S & { recovery_codes?: string[] }>;
  /** The secret to set up, when the workspace requires two-factor. */
  setup(challenge: string): Promise<Enrolment>;
  signedIn(session: S): void;
}

/** The sign-in form's second page: the code (or the enrolment, then its first code). */
export function secondStepForm<S>(
  step: { kind: "verify" | "enrol"; challenge: string },
  o: SecondStep<S>,
  describe: (err: unknown) => string,
): HTMLElement {
  const input = codeInput(step.kind === "verify");
  const error = h("p", { class: "form-error", role: "alert" });
  const submit = h("button", { type: "submit", class: "primary" }, "Verify");
  const setupSlot = h("div");
  const form = h(
    "form",
    {
      class: "login two-factor-step",
      onSubmit: async (e) => {
        e.preventDefault();
        submit.disabled = true;
        error.replaceChildren();
        try {
          const session = await o.complete(step.challenge, input.value);
          if (session.recovery_codes) {
            form.replaceChildren(
              h("h1", null, "Two-factor sign-in is on"),
              recoveryCodesCard(session.recovery_codes),
              h("button", {
                type: "button",
                class: "primary",
                onClick: () => o.signedIn(session),
              }, "Continue"),
            );
            return;
          }
          o.signedIn(session);
        } catch (err) {
          error.append(describe(err));
          submit.disabled = false;
          input.select();
        }
      },
    },
    h("h1", null, step.kind === "verify" ? "Two-factor sign-in" : "Set up two-factor sign-in"),
    h(
      "p",
      { class: "muted" },
      step.kind === "verify"
        ? "Type the code your authenticator app shows, or one of your recovery codes."
        : "Your workspace requires two-factor sign-in. Set it up now, then type the code the " +
          "app shows.",
    ),
    setupSlot,
    h("label", null, "Code", input),
    error,
    submit,
  );
  if (step.kind === "enrol") {
    o.setup(step.challenge).then(
      (e) => setupSlot.replaceChildren(enrolmentCard(e)),
      (err) => error.append(describe(err)),
    );
  }
  queueMicrotask(() => input.focus());
  return form;
}
