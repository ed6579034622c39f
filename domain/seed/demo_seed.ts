/**
 * The demo workspace created on a first embedded start, so `task start` on a
 * fresh machine shows a working bot at once. Credentials are generated here
 * and printed once; afterwards only their hashes exist.
 */
import type { Sql } from "../../db/client.ts";
import { findWorkspaceBySlug } from "../../db/workspaces.ts";
import { randomSecret, sha256Hex } from "../auth/secrets.ts";
import { findTokenByHashForAuth } from "../../db/tokens.ts";
import { applySeed } from "./apply_seed.ts";

export const DEMO_SLUG = "demo";
export const DEMO_EMAIL = "owner@demo.parley.local";
export const DEMO_BOT_KEY = "demo-bot";

export interface DemoCredentials {
  created: boolean;
  email: string;
  password: string | null;
  token: string | null;
  botKey: string;
}

export async function ensureDemo(
  deps: { sql: Sql; appKey: CryptoKey; now: Date },
): Promise<DemoCredentials> {
  if (await findWorkspaceBySlug(deps.sql, DEMO_SLUG)) {
    return { created: false, email: DEMO_EMAIL, password: null, token: null, botKey: DEMO_BOT_KEY };
  }
  const password = randomSecret(12);
  const secret = randomSecret(30);
  await applySeed(deps, {
    workspaces: [{
      name: "Demo Company",
      slug: DEMO_SLUG,
      plan: "pro",
      portal_enabled: true,
      users: [{
        name: "Demo Owner",
        email: DEMO_EMAIL,
        password,
        role: "owner",
        tokens: [{ name: "demo settings token", token: secret, ability: "api" }],
      }],
      chatbots: [{
        name: "Parley Demo Bot",
        public_key: DEMO_BOT_KEY,
        persona: "A friendly, concise support assistant for Parley.",
        instructions: "Answer questions about Parley using the knowledge provided.",
        branding: { title: "Parley Demo", theme: "ocean" },
        knowledge: [
          {
            type: "text",
            title: "About Parley",
            content:
              "# What is Parley\nParley is a self-hostable conversational support service. Workspaces host AI chatbots that answer visitors from the workspace's knowledge.\n\n# Human handoff\nAgents can take a conversation over from the inbox, reply, tag it, resolve it and hand it back to the AI.",
          },
          {
            type: "qa",
            title: "Pricing",
            question: "How much does Parley cost?",
            answer: "Parley is free to self-host. Plans limit monthly messages, bots and seats.",
          },
        ],
      }],
      tags: [{ name: "billing", color: "#f59e0b" }, { name: "bug", color: "#ef4444" }],
      canned: [{ title: "Greeting", shortcut: "/hi", body: "Hi! Thanks for reaching out." }],
    }],
  });
  // Printed in the one token format the API documents, `<id>|<secret>`, as every issued token is.
  const row = await findTokenByHashForAuth(deps.sql, await sha256Hex(secret));
  const token = row ? `${row.token_id}|${secret}` : secret;
  return { created: true, email: DEMO_EMAIL, password, token, botKey: DEMO_BOT_KEY };
}
