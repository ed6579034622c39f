/**
 * The billing side of customer context: the Stripe customer with the
 * visitor's e-mail and their subscriptions, through the official `stripe`
 * package (stripe_client.ts). Failures throw; the caller degrades.
 */
import Stripe from "stripe";
import { formatMinorUnits } from "../money.ts";
import type { GuardOptions } from "./guarded_fetch.ts";
import { stripeClient } from "./stripe_client.ts";

export type BillingData =
  | { found: false }
  | {
    found: true;
    customer: { name: string | null; email: string | null };
    subscriptions: BillingSubscription[];
  };

export interface BillingSubscription {
  status: string;
  plan: string | null;
  /** "29.00 EUR / month" */
  amount: string | null;
  /** When the subscription renews (ISO 8601), or null when it will not. */
  renews: string | null;
}

const SUBSCRIPTIONS_SHOWN = 10;

export async function fetchStripeBilling(
  secretKey: string,
  email: string,
  guard: GuardOptions,
): Promise<BillingData> {
  const stripe = stripeClient(secretKey, guard);
  const customers = await stripe.customers.list({ email, limit: 1 });
  const customer = customers.data[0];
  if (!customer) return { found: false };
  const subs = await stripe.subscriptions.list({
    customer: customer.id,
    status: "all",
    limit: SUBSCRIPTIONS_SHOWN,
    expand: ["data.items.data.price.product"],
  });
  return {
    found: true,
    customer: { name: customer.name ?? null, email: customer.email ?? null },
    subscriptions: subs.data.map(describeSubscription),
  };
}

function describeSubscription(s: Stripe.Subscription): BillingSubscription {
  const items = s.items.data;
  const first = items[0];
  const price = first?.price;
  const product = price?.product;
  const plan =
    (typeof product === "object" && product && "name" in product ? product.name : null) ??
      price?.nickname ?? price?.id ?? null;
  const currency = price?.currency;
  const minor = items.reduce((n, i) => n + (i.price.unit_amount ?? 0) * (i.quantity ?? 1), 0);
  const interval = price?.recurring?.interval;
  const ends = items.map((i) => i.current_period_end).filter((t): t is number => Boolean(t));
  const renewing = (s.status === "active" || s.status === "trialing" || s.status === "past_due") &&
    !s.cancel_at_period_end && ends.length > 0;
  return {
    status: s.status,
    plan,
    amount: currency
      ? `${formatMinorUnits(minor, currency)}${interval ? ` / ${interval}` : ""}`
      : null,
    renews: renewing ? new Date(Math.min(...ends) * 1000).toISOString() : null,
  };
}
