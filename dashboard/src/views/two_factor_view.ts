/// <reference lib="dom" />
/**
 * Two-factor sign-in for the signed-in person (docs/accounts.md): turn it on
 * (QR code, typed secret, a first code, recovery codes shown once), see it is
 * on, turn it off with the password and a code (the section the inbox's
 * Account panel shares, inbox/src/two_factor_section.ts); an owner also
 * requires it of the workspace. Its own screen, so the profile view can link here.
 */
import { h } from "../../../inbox/src/dom.ts";
import { twoFactorContent } from "../../../inbox/src/two_factor_section.ts";
import type { DashboardOutputs } from "../../../clients/dashboard_client.ts";
import type { Screen, ScreenContext } from "../screen.ts";
import { errorLine, failureText, pageHeader } from "../ui.ts";

type Status = DashboardOutputs["twoFactorStatus"];

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
        ...twoFactorContent(ctx.client, (t) => ctx.notify(t), status, reload),
        ...(ctx.session.user.role === "owner" ? [requirementControl(ctx, status, reload)] : []),
      );
      ctx.dataReady();
    };
    await load();
    page.append(body);
    return page;
  },
};
