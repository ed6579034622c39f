/**
 * What is known of a visitor, as plain lines for an agent suggestion's
 * prompt (the bot's `copilot_use_profile`): the pre-chat answers (name,
 * e-mail, phone), whether the identity was verified by the site, and what
 * the linked storefront and billing services know by that e-mail. Null when
 * nothing is known. A linked service that fails leaves its part out.
 */
import type { AppDeps } from "../deps.ts";
import type { ConversationRow } from "../../db/conversations.ts";
import { listIntegrations } from "../../db/workspace_integrations.ts";
import { customerContext } from "../customer_context/customer_context.ts";

export async function visitorProfile(
  deps: AppDeps,
  workspaceId: number,
  c: ConversationRow,
): Promise<string | null> {
  const lines: string[] = [];
  if (c.visitor_name) lines.push(`Name: ${c.visitor_name}`);
  if (c.visitor_email) lines.push(`E-mail: ${c.visitor_email}`);
  if (c.visitor_phone) lines.push(`Phone: ${c.visitor_phone}`);
  const identity = c.meta?.identity as { sub?: unknown; verified?: unknown } | undefined;
  if (identity?.verified === true && typeof identity.sub === "string") {
    lines.push(`Signed in on the site as user ${identity.sub} (verified).`);
  }
  if (c.visitor_email && (await listIntegrations(deps.sql, workspaceId)).length > 0) {
    const ctx = await customerContext(deps, { workspaceId, conversationId: c.public_id })
      .catch(() => null);
    for (const o of ctx?.storefront.orders.slice(0, 5) ?? []) {
      lines.push(
        `Order ${o.name} of ${o.created_at.slice(0, 10)}: ${o.total}, ${
          o.financial_status ?? "unknown"
        } payment, ${o.fulfillment_status ?? "unfulfilled"}.`,
      );
    }
    const billing = ctx?.billing.data;
    if (billing?.found) {
      for (const s of billing.subscriptions.slice(0, 5)) {
        lines.push(`Subscription: ${s.plan ?? "a plan"}, ${s.status}.`);
      }
    }
  }
  return lines.length ? lines.join("\n") : null;
}
