/**
 * A settings token (ability `api`) as the dashboard's REST API tokens panel
 * lists it (SPEC: named, shown once, up to 20 per account, revocation
 * immediate); its state is read from its dates.
 */
import type { OwnTokenRow } from "../../db/tokens.ts";

export type TokenState = "active" | "expired" | "revoked";

export interface ApiTokenView {
  id: number;
  name: string;
  created_at: string;
  last_used_at: string | null;
  expires_at: string;
  state: TokenState;
  /**
   * Active and expiring within EXPIRY_WARNING_DAYS: time to create its
   * replacement (the spec's rule: before the old one expires).
   */
  expires_soon: boolean;
}

export const EXPIRY_WARNING_DAYS = 7;

export function apiTokenView(row: OwnTokenRow, now: Date): ApiTokenView {
  const state: TokenState = row.revoked_at
    ? "revoked"
    : row.expires_at.getTime() <= now.getTime()
    ? "expired"
    : "active";
  return {
    id: Number(row.id),
    name: row.name,
    created_at: row.created_at.toISOString(),
    last_used_at: row.last_used_at?.toISOString() ?? null,
    expires_at: row.expires_at.toISOString(),
    state,
    expires_soon: state === "active" &&
      row.expires_at.getTime() - now.getTime() <= EXPIRY_WARNING_DAYS * 86_400_000,
  };
}
