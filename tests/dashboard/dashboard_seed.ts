/**
 * The standard seed plus a dashboard token for each acme role and the globex
 * owner (`D.acme.owner` …), so the HTTP tests need no login per role.
 */
import { standardSeed } from "../helpers/fixtures.ts";

export const D = {
  acme: {
    owner: "acme-owner-dashboard-tok1",
    administrator: "acme-admin-dashboard-tok1",
    agent: "acme-agent-dashboard-tok1",
    viewer: "acme-viewer-dashboard-tok",
  },
  globex: { owner: "globex-owner-dashboard-t1" },
} as const;

const BY_EMAIL: Record<string, string> = {
  "owner@acme.test": D.acme.owner,
  "admin@acme.test": D.acme.administrator,
  "agent@acme.test": D.acme.agent,
  "viewer@acme.test": D.acme.viewer,
  "owner@globex.test": D.globex.owner,
};

export function dashboardSeed(overrides: Parameters<typeof standardSeed>[0] = {}) {
  const seed = standardSeed(overrides);
  for (const ws of seed.workspaces) {
    for (const user of ws.users) {
      const token = BY_EMAIL[user.email];
      if (token) {
        (user.tokens as { name: string; token: string; ability: string }[]).push({
          name: "dashboard",
          token,
          ability: "dashboard",
        });
      }
    }
  }
  return seed;
}

/** The four roles of acme with their dashboard tokens, for "each role" loops. */
export const ROLES = [
  ["owner", D.acme.owner],
  ["administrator", D.acme.administrator],
  ["agent", D.acme.agent],
  ["viewer", D.acme.viewer],
] as const;
