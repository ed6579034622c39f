/** Two-factor sign-in on the agent API (docs/accounts.md): the login's second step, and the user's own enrolment. */
import { agentProcedure } from "../trpc.ts";
import { tokenSession } from "./session.ts";
import { secondStepProcedures, withRecoveryCodes } from "../two_factor_login.ts";
import { twoFactorAccountProcedures } from "../two_factor_account.ts";
import { agentTwoFactorLogin } from "../../domain/agent/agent_login.ts";

export const agentSecondStep = secondStepProcedures({
  prefix: "/api/agent",
  ability: "agent",
  answer: withRecoveryCodes(tokenSession),
  complete: agentTwoFactorLogin,
});

export const agentTwoFactorAccount = twoFactorAccountProcedures(agentProcedure, "/api/agent");
