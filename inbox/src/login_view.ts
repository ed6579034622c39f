/// <reference lib="dom" />
/**
 * The sign-in form: the agent login (`agent.login`, then `agent.loginTwoFactor`
 * when two-factor is on), nothing stored but the session it returns.
 */
import {
  type AgentClient,
  describeFailure,
  type TokenSession,
} from "../../clients/agent_client.ts";
import { signInForm } from "./sign_in_form.ts";
import { forgotPasswordLink } from "./password_reset_view.ts";

export function loginView(
  client: AgentClient,
  notice: string | null,
  onSignedIn: (s: TokenSession) => void,
): HTMLElement {
  return signInForm({
    title: "Parley inbox",
    notice,
    describe: describeFailure,
    submit: async (email, password) =>
      onSignedIn(await client.agent.login.mutate({ email, password, device_name: "Web inbox" })),
    footer: forgotPasswordLink(client.dashboard, "inbox"),
    secondStep: {
      complete: (challenge, code) => client.agent.loginTwoFactor.mutate({ challenge, code }),
      setup: (challenge) => client.agent.loginTwoFactorSetup.mutate({ challenge }),
      signedIn: onSignedIn,
    },
  });
}
