/// <reference lib="dom" />
/**
 * The sign-in form (`dashboard.login`). A 403 for a right password (an agent)
 * says where to go instead and links to the inbox. With two-factor on, the
 * form continues with the code step (`dashboard.loginTwoFactor`).
 */
import {
  type DashboardClient,
  type DashboardSession,
  describeFailure,
} from "../../clients/dashboard_client.ts";
import { h } from "../../inbox/src/dom.ts";
import { signInForm } from "../../inbox/src/sign_in_form.ts";
import { forgotPasswordLink } from "../../inbox/src/password_reset_view.ts";

export function loginView(
  client: DashboardClient,
  notice: string | null,
  onSignedIn: (s: DashboardSession) => void,
): HTMLElement {
  return signInForm({
    title: "Parley dashboard",
    notice,
    describe: describeFailure,
    submit: async (email, password) => onSignedIn(await client.login.mutate({ email, password })),
    afterError: (f) =>
      f.status === 403 && /inbox/.test(f.message)
        ? h("a", { href: "/inbox", class: "to-inbox" }, "Open the inbox")
        : null,
    intro: h("p", { class: "muted" }, "For a workspace's owners, administrators and viewers."),
    secondStep: {
      complete: (challenge, code) => client.loginTwoFactor.mutate({ challenge, code }),
      setup: (challenge) => client.loginTwoFactorSetup.mutate({ challenge }),
      signedIn: onSignedIn,
    },
    footer: h(
      "div",
      null,
      forgotPasswordLink(client, "dashboard"),
      h(
        "p",
        { class: "muted small" },
        "Answering conversations? ",
        h("a", { href: "/inbox" }, "Go to the inbox"),
      ),
    ),
  });
}
