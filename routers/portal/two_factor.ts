/** The portal login's second step for an account with two-factor sign-in (docs/accounts.md). */
import { z } from "zod";
import { brand, company, user } from "./session.ts";
import { secondStepProcedures, withRecoveryCodes } from "../two_factor_login.ts";
import { portalTwoFactorLogin } from "../../domain/portal/portal_login.ts";

export const portalSecondStep = secondStepProcedures({
  prefix: "/api/portal",
  ability: "portal",
  answer: withRecoveryCodes(z.object({ token: z.string(), user, company, brand })),
  complete: portalTwoFactorLogin,
});
