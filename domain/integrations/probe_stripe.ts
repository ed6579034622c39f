/**
 * "Test connection" for billing: what customer context does with the key,
 * through the same official client and guard. Reading customers must work
 * (a refusal fails the test); reading subscriptions should (a warning
 * otherwise); the account's name is shown when the key may read it (a
 * restricted key often may not). The mode comes from the key's prefix.
 */
import Stripe from "stripe";
import type { GuardOptions } from "../customer_context/guarded_fetch.ts";
import { stripeClient } from "../customer_context/stripe_client.ts";
import { type ConnectionCheck, failed, noAnswer } from "./connection_check.ts";

export async function probeStripe(
  secretKey: string,
  guard: GuardOptions,
): Promise<ConnectionCheck> {
  let thrown: unknown = null;
  const stripe = stripeClient(secretKey, { ...guard, onFailure: (err) => (thrown = err) });
  const describe = (err: unknown) =>
    thrown ? noAnswer("Stripe", thrown, guard.timeoutMs) : refusal(err);
  try {
    await stripe.customers.list({ limit: 1 });
  } catch (err) {
    if (err instanceof Stripe.errors.StripePermissionError) {
      return failed(
        "The key may not read customers, which customer context needs (403). Give a restricted " +
          "key the Customers and Subscriptions read permissions, or use the secret key.",
      );
    }
    return failed(describe(err));
  }
  const warnings: string[] = [];
  try {
    await stripe.subscriptions.list({ limit: 1, status: "all" });
  } catch (err) {
    if (!(err instanceof Stripe.errors.StripePermissionError)) return failed(describe(err));
    warnings.push(
      "The key may not read subscriptions: agents will see the customer but not their plan.",
    );
  }
  const account = await stripe.accounts.retrieve(null).catch((err) => {
    if (err instanceof Stripe.errors.StripePermissionError) return null;
    throw err;
  }).catch((err) => ({ failure: describe(err) }));
  if (account && "failure" in account) return failed(account.failure);
  const mode = /^[a-z]+_live_/.test(secretKey)
    ? "live"
    : /^[a-z]+_test_/.test(secretKey)
    ? "test"
    : null;
  const name = account
    ? account.settings?.dashboard?.display_name ?? account.business_profile?.name ??
      account.email ?? null
    : null;
  const where = mode ? ` in ${mode} mode` : "";
  return {
    ok: true,
    message: account
      ? `Connected to the Stripe account “${name ?? account.id}” (${account.id})${where}.`
      : `Connected to Stripe${where}; the key may not read the account's name.`,
    found: {
      name,
      account: account?.id ?? null,
      mode,
      currency: account?.default_currency?.toUpperCase() ?? null,
    },
    warnings,
  };
}

function refusal(err: unknown): string {
  if (err instanceof Stripe.errors.StripeAuthenticationError) {
    return "Stripe refused the key (401): it is not a valid secret key (sk_…) or restricted " +
      "key (rk_…), or it was rolled.";
  }
  if (err instanceof Stripe.errors.StripeRateLimitError) {
    return "Stripe is limiting this key's requests (429): try again in a minute.";
  }
  if (err instanceof Stripe.errors.StripeError) {
    const status = err.statusCode;
    if (status && status >= 500) {
      return `Stripe answered ${status}: its service failed; try again in a moment.`;
    }
    return `Stripe answered${status ? ` ${status}` : ""}: ${err.message}`;
  }
  return `Stripe could not be asked: ${err instanceof Error ? err.message : String(err)}`;
}
