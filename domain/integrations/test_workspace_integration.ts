/**
 * "Test connection": ask the service with the stored credential (the outcome
 * is recorded as the integration's state) or with values typed but not yet
 * saved (nothing recorded), through the same official clients and the same
 * address policy as customer context. A failed test is an answer (`ok:
 * false` with the reason), not an error.
 */
import type { AppDeps } from "../deps.ts";
import type { Auth } from "../auth/tokens.ts";
import {
  findIntegration,
  type IntegrationService,
  recordIntegrationCheck,
} from "../../db/workspace_integrations.ts";
import {
  readCredential,
  validateIntegrationLink,
} from "../customer_context/integration_credentials.ts";
import { integrationGuard } from "../customer_context/integration_guard.ts";
import { Invalid, NotFound } from "../errors.ts";
import type { ConnectionCheck } from "./connection_check.ts";
import { probeShopify } from "./probe_shopify.ts";
import { probeStripe } from "./probe_stripe.ts";
import { PROVIDER } from "./integration_view.ts";

export interface TestOutcome extends ConnectionCheck {
  service: IntegrationService;
  /** `stored`: the saved credential (its state updated); `given`: values not saved. */
  tested: "stored" | "given";
  checked_at: string;
}

export async function testWorkspaceIntegration(
  deps: Pick<AppDeps, "sql" | "appKey" | "config">,
  auth: Auth,
  input: { service: IntegrationService; shop?: string | null; credential?: string | null },
  now: Date,
): Promise<TestOutcome> {
  const workspaceId = auth.workspace.id;
  const probe = (account: string | null, credential: string) =>
    input.service === "storefront"
      ? probeShopify(
        { domain: account!, accessToken: credential },
        integrationGuard(deps.config, "storefront"),
      )
      : probeStripe(credential, integrationGuard(deps.config, "billing"));

  if (input.credential) {
    const link = validateIntegrationLink({ ...input, credential: input.credential });
    const check = await probe(link.account, link.credential);
    return { ...check, service: input.service, tested: "given", checked_at: now.toISOString() };
  }
  if (input.shop) {
    throw Invalid.field("credential", "Give the access token to test with another shop.");
  }
  const row = await findIntegration(deps.sql, workspaceId, input.service);
  if (!row) {
    throw new NotFound(
      `The ${input.service} (${PROVIDER[input.service]}) is not linked: link it first, or ` +
        "give the values to test.",
    );
  }
  const check = await probe(row.account, await readCredential(deps.appKey, row));
  const message = [check.message, ...check.warnings].join(" ");
  await recordIntegrationCheck(deps.sql, workspaceId, input.service, row.ciphertext, {
    ok: check.ok,
    message,
    at: now,
  });
  return { ...check, service: input.service, tested: "stored", checked_at: now.toISOString() };
}
