/**
 * Revenue an agent attributes to a conversation (a sale the chat closed).
 * `amount` is in whole currency units and stored exactly as integer minor
 * units ("cents": 2 decimals for EUR, none for JPY, 3 for KWD, as ISO 4217
 * says); a repeated call replaces the figure. Rules: docs/agent-api.md.
 */
import type { AppDeps } from "../deps.ts";
import { setConversationRevenue } from "../../db/conversation_assist.ts";
import { isUuid } from "../../db/conversations.ts";
import { Invalid, NotFound } from "../errors.ts";
import { publishEvent } from "../events.ts";
import { minorUnitDigits } from "../money.ts";
import { CONVERSATION_NOT_FOUND } from "./assist_target.ts";

const CURRENCIES = new Set(Intl.supportedValuesOf("currency"));

export interface RevenueView {
  revenue_cents: number;
  revenue_amount: number;
  revenue_currency: string;
  revenue_label: string | null;
}

export function revenueView(cents: number, currency: string, label: string | null): RevenueView {
  return {
    revenue_cents: cents,
    revenue_amount: cents / 10 ** minorUnitDigits(currency),
    revenue_currency: currency,
    revenue_label: label,
  };
}

export async function recordRevenue(
  deps: AppDeps,
  input: {
    workspaceId: number;
    userId: number;
    conversationId: string;
    amount: number;
    currency: string;
    label?: string | null;
  },
): Promise<RevenueView> {
  const currency = input.currency.trim().toUpperCase();
  if (!CURRENCIES.has(currency)) {
    throw Invalid.field("currency", "The currency must be an ISO 4217 code, such as EUR or USD.");
  }
  const digits = minorUnitDigits(currency);
  const scaled = input.amount * 10 ** digits;
  const cents = Math.round(scaled);
  if (Math.abs(scaled - cents) > 1e-6) {
    throw Invalid.field(
      "amount",
      `The amount has more decimals than ${currency} allows (${digits}).`,
    );
  }
  if (!isUuid(input.conversationId)) throw new NotFound(CONVERSATION_NOT_FOUND);
  const label = input.label?.trim() || null;
  const row = await setConversationRevenue(deps.sql, input.workspaceId, input.conversationId, {
    cents: BigInt(cents),
    currency,
    label,
    at: deps.clock(),
  });
  if (!row) throw new NotFound(CONVERSATION_NOT_FOUND);
  await publishEvent(deps, {
    type: "conversation.updated",
    workspaceId: input.workspaceId,
    conversationId: input.conversationId,
    reason: "revenue",
    actorUserId: input.userId,
  });
  return revenueView(cents, currency, label);
}
