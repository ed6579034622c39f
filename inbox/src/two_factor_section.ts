/// <reference lib="dom" />
/**
 * A person's own two-factor sign-in (docs/accounts.md), shared by the
 * dashboard's Two-factor screen and the inbox's Account panel: whether it is
 * on, turning it on (QR code, typed secret, a first code, recovery codes
 * shown once), and off with the password and a code. It speaks to the
 * `/api/dashboard/account/two-factor` procedures, which open with any of the
 * person's sign-in tokens, through either app's client.
 */
import type { DashboardClient, DashboardOutputs } from "../../clients/dashboard_client.ts";
import { describeFailure } from "../../clients/agent_client.ts";
import { h } from "./dom.ts";
import { codeInput, enrolmentCard, recoveryCodesCard } from "./two_factor_parts.ts";

export type TwoFactorApi = Pick<
  DashboardClient,
  "twoFactorStatus" | "startTwoFactor" | "confirmTwoFactor" | "disableTwoFactor"
>;
export type TwoFactorStatus = DashboardOutputs["twoFactorStatus"];

interface Parts {
  api: TwoFactorApi;
  say: (text: string) => void;
  reload: () => void;
}

function errorLine(): HTMLElement {
  return h("p", { class: "form-error", role: "alert" });
}

function field(label: string, control: HTMLInputElement): HTMLElement {
  return h(
    "label",
    { class: "field" },
    h("span", { class: "label" }, label),
    control,
    h("span", { class: "field-error", "data-error-for": control.name }),
  );
}

/** Each field error beside its input; the text for the form's own line. */
function showErrors(form: HTMLElement, err: unknown): string {
  const f = describeFailure(err);
  for (const slot of form.querySelectorAll<HTMLElement>("[data-error-for]")) slot.textContent = "";
  const rest: string[] = [];
  for (const [name, messages] of Object.entries(f.errors ?? {})) {
    const slot = form.querySelector<HTMLElement>(`[data-error-for="${name}"]`);
    if (slot) slot.textContent = messages.join(" ");
    else rest.push(...messages);
  }
  return f.errors ? rest.join(" ") : f.message;
}

function enrolSection(p: Parts): HTMLElement {
  const slot = h("div");
  const error = errorLine();
  const start = h("button", {
    type: "button",
    class: "primary",
    onClick: async () => {
      error.textContent = "";
      try {
        const enrolment = await p.api.startTwoFactor.mutate({});
        slot.replaceChildren(enrolmentCard(enrolment), confirmForm(p, slot));
        start.hidden = true;
      } catch (err) {
        error.textContent = describeFailure(err).message;
      }
    },
  }, "Turn on two-factor sign-in");
  return h(
    "div",
    { class: "two-factor-off" },
    h(
      "p",
      null,
      "Two-factor sign-in is off. With it on, signing in also asks for a code from an " +
        "authenticator app on your phone.",
    ),
    start,
    error,
    slot,
  );
}

function confirmForm(p: Parts, slot: HTMLElement): HTMLElement {
  const code = codeInput(false);
  const error = errorLine();
  const form: HTMLFormElement = h(
    "form",
    {
      class: "form-grid",
      "aria-label": "Confirm two-factor sign-in",
      onSubmit: async (e: Event) => {
        e.preventDefault();
        try {
          const done = await p.api.confirmTwoFactor.mutate({ code: code.value });
          const next = h("button", { type: "button", onClick: p.reload }, "Done");
          slot.replaceChildren(recoveryCodesCard(done.recovery_codes), next);
          p.say("Two-factor sign-in is on.");
        } catch (err) {
          error.textContent = showErrors(form, err);
        }
      },
    },
    field("Code from the app", code),
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "primary" }, "Confirm"),
    ),
    error,
  );
  return form;
}

function disableForm(p: Parts): HTMLElement {
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: "current-password",
    required: true,
  });
  const code = codeInput(true);
  const error = errorLine();
  const form: HTMLFormElement = h(
    "form",
    {
      class: "form-grid",
      "aria-label": "Turn off two-factor sign-in",
      onSubmit: async (e: Event) => {
        e.preventDefault();
        if (!confirm("Turn off two-factor sign-in? Your password alone will sign you in.")) return;
        try {
          p.say(
            (await p.api.disableTwoFactor.mutate({ password: password.value, code: code.value }))
              .message,
          );
          p.reload();
        } catch (err) {
          error.textContent = showErrors(form, err);
        }
      },
    },
    field("Password", password),
    field("Code (or a recovery code)", code),
    h(
      "div",
      { class: "form-actions" },
      h("button", { type: "submit", class: "danger" }, "Turn off"),
    ),
    error,
  );
  return form;
}

/** The section's content for `status`; `reload` reads the status again and redraws. */
export function twoFactorContent(
  api: TwoFactorApi,
  say: (text: string) => void,
  status: TwoFactorStatus,
  reload: () => void,
): HTMLElement[] {
  const p = { api, say, reload };
  const since = status.enabled_at ? new Date(status.enabled_at).toLocaleDateString() : "";
  return [
    status.enabled
      ? h(
        "div",
        { class: "two-factor-on" },
        h(
          "p",
          null,
          h("span", { class: "pill active" }, "On"),
          ` since ${since}; ${status.recovery_codes_left} recovery codes left.`,
        ),
        disableForm(p),
      )
      : enrolSection(p),
    ...(status.required_by_workspace && !status.enabled
      ? [h("p", { role: "note" }, "Your workspace requires two-factor sign-in.")]
      : []),
  ];
}

/** A self-contained "Two-factor sign-in" section (the inbox's Account panel). */
export async function twoFactorSection(
  api: TwoFactorApi,
  say: (text: string) => void,
): Promise<HTMLElement> {
  const section = h("section", { class: "two-factor", "aria-label": "Two-factor sign-in" });
  const load = async () => {
    const status = await api.twoFactorStatus.query({});
    section.replaceChildren(
      h("h3", null, "Two-factor sign-in"),
      ...twoFactorContent(api, say, status, () => void load()),
    );
  };
  await load();
  return section;
}
