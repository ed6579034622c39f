/// <reference lib="dom" />
/**
 * Two-factor sign-in for the signed-in person (docs/accounts.md): turn it on
 * (QR code, typed secret, a first code, recovery codes shown once), see it is
 * on, turn it off with the password and a code; an owner also requires it of
 * the workspace. Its own screen, so the profile view can link here.
 */
import { h } from "../../../inbox/src/dom.ts";
import {
  codeInput,
  enrolmentCard,
  recoveryCodesCard,
} from "../../../inbox/src/two_factor_parts.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { Screen, ScreenContext } from "../screen.ts";
import { errorLine, failureText, field, formatDate, pageHeader, showFieldErrors } from "../ui.ts";

type Status = DashboardOutputs["twoFactorStatus"];

function enrolSection(ctx: ScreenContext, reload: () => void): HTMLElement {
  const slot = h("div");
  const error = errorLine();
  const start = h("button", {
    type: "button",
    class: "primary",
    onClick: async () => {
      error.textContent = "";
      try {
        const enrolment = await ctx.client.startTwoFactor.mutate({});
        slot.replaceChildren(enrolmentCard(enrolment), confirmForm(ctx, slot, reload));
        start.hidden = true;
      } catch (err) {
        error.textContent = failureText(err);
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

function confirmForm(ctx: ScreenContext, slot: HTMLElement, reload: () => void): HTMLElement {
  const code = codeInput(false);
  const error = errorLine();
  const form: HTMLFormElement = h(
    "form",
    {
      class: "form-grid",
      "aria-label": "Confirm two-factor sign-in",
      onSubmit: async (e) => {
        e.preventDefault();
        try {
          const done = await ctx.client.confirmTwoFactor.mutate({ code: code.value });
          const next = h("button", { type: "button", onClick: reload }, "Done");
          slot.replaceChildren(recoveryCodesCard(done.recovery_codes), next);
          ctx.notify("Two-factor sign-in is on.");
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
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

function disableForm(ctx: ScreenContext, reload: () => void): HTMLElement {
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
      onSubmit: async (e) => {
        e.preventDefault();
        if (!confirm("Turn off two-factor sign-in? Your password alone will sign you in.")) return;
        try {
          ctx.notify(
            (await ctx.client.disableTwoFactor.mutate({
              password: password.value,
              code: code.value,
            })).message,
          );
          reload();
        } catch (err) {
          error.textContent = showFieldErrors(form, err);
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

function requirementControl(ctx: ScreenContext, status: Status, reload: () => void): HTMLElement {
  const box = h("input", {
    type: "checkbox",
    name: "required",
    checked: status.required_by_workspace,
  });
  const error = errorLine();
  box.addEventListener("change", async () => {
    error.textContent = "";
    try {
      await ctx.client.setTwoFactorRequirement.mutate({ required: box.checked });
      ctx.notify(box.checked ? "Two-factor sign-in is now required." : "No longer required.");
      reload();
    } catch (err) {
      box.checked = !box.checked;
      error.textContent = failureText(err);
    }
  });
  return h(
    "div",
    { class: "card two-factor-requirement" },
    h("h2", null, "Workspace"),
    h(
      "label",
      { class: "check" },
      box,
      " Require two-factor sign-in of every member (those without it set it up at their next " +
        "sign-in)",
    ),
    error,
  );
}

export const twoFactorScreen: Screen = {
  path: "two-factor",
  title: "Two-factor",
  async render(ctx) {
    const page = h("section", { class: "two-factor" }, pageHeader("Two-factor sign-in"));
    const body = h("div");
    const load = async () => {
      const status = await ctx.client.twoFactorStatus.query({});
      const reload = () => void load();
      body.replaceChildren(
        status.enabled
          ? h(
            "div",
            { class: "two-factor-on" },
            h(
              "p",
              null,
              h("span", { class: "pill active" }, "On"),
              ` since ${formatDate(status.enabled_at)}; ${status.recovery_codes_left} ` +
                "recovery codes left.",
            ),
            disableForm(ctx, reload),
          )
          : enrolSection(ctx, reload),
        ...(status.required_by_workspace && !status.enabled
          ? [h("p", { role: "note" }, "Your workspace requires two-factor sign-in.")]
          : []),
        ...(ctx.session.user.role === "owner" ? [requirementControl(ctx, status, reload)] : []),
      );
      ctx.dataReady();
    };
    await load();
    page.append(body);
    return page;
  },
};
