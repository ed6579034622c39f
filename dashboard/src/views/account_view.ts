/// <reference lib="dom" />
/** "Your account": the shared account view (inbox/src/account_view.ts) as a dashboard screen. */
import { h } from "../../../inbox/src/dom.ts";
import { accountView } from "../../../inbox/src/account_view.ts";
import type { Screen } from "../screen.ts";
import { pageHeader } from "../ui.ts";

export const accountScreen: Screen = {
  path: "account",
  title: "Your account",
  async render(ctx) {
    const view = await accountView(ctx.client, (text) => ctx.notify(text));
    ctx.dataReady();
    return h("section", { class: "account-screen" }, pageHeader("Your account"), view);
  },
};
