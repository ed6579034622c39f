/**
 * An invitation link, read and used: the invitee sees the workspace and role,
 * then chooses a name and password; the account is created, the link spent
 * and a first token issued in one transaction, so a second use finds nothing
 * (404) and the new member is signed in where their role works: an agent in
 * the inbox (an agent token, as POST /api/agent/login gives), anyone else in
 * the dashboard (a dashboard token, as POST /api/dashboard/login gives).
 */
import type { AppDeps } from "../deps.ts";
import { findUsableInvitation, markInvitationAccepted } from "../../db/invitations.ts";
import { findUserByEmail, insertUser } from "../../db/users.ts";
import { findWorkspace } from "../../db/workspaces.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { hashPassword } from "../auth/passwords.ts";
import { issueToken } from "../auth/tokens.ts";
import { workspaceRequiresTwoFactor } from "../../db/two_factor.ts";
import { signedInSubjects } from "../auth/login.ts";
import { recordAudit } from "../audit/record_audit.ts";
import {
  AGENT_TOKEN_NAME,
  type AgentSessionView,
  agentSessionView,
} from "../agent/agent_session.ts";
import {
  DASHBOARD_TOKEN_NAME,
  type DashboardSessionView,
  dashboardSessionView,
} from "../dashboard/dashboard_session.ts";
import { Invalid, NotFound } from "../errors.ts";

const GONE = "This invitation link is not valid: it was used, revoked, renewed or has expired. " +
  "Ask for a new one.";

export async function describeInvitation(deps: Pick<AppDeps, "sql">, secret: string, now: Date) {
  const row = await findUsableInvitation(deps.sql, await sha256Hex(secret), now);
  if (!row) throw new NotFound(GONE);
  return { workspace: row.workspace_name, email: row.email, role: row.role };
}

export interface Accepted {
  email: string;
  role: string;
  /** The workspace joined, by name. */
  workspace: string;
  sign_in_at: "/inbox" | "/dashboard";
  /** Signed in: the inbox session for an agent, null otherwise. */
  agent_session: ({ token: string } & AgentSessionView) | null;
  /** Signed in: the dashboard session for an owner, administrator or viewer, null for an agent. */
  dashboard_session: ({ token: string } & DashboardSessionView) | null;
  /**
   * The workspace requires two-factor sign-in (docs/accounts.md): no session
   * is given here; the member signs in, and that sign-in sets it up first.
   */
  two_factor_setup_required: boolean;
}

export async function acceptInvitation(
  deps: Pick<AppDeps, "sql">,
  input: { secret: string; name: string; password: string; ip: string | null },
  now: Date,
): Promise<Accepted> {
  const hash = await sha256Hex(input.secret);
  const passwordHash = await hashPassword(input.password);
  const done = await deps.sql.begin(async (tx) => {
    const row = await findUsableInvitation(tx, hash, now, true);
    if (!row) throw new NotFound(GONE);
    if (await findUserByEmail(tx, row.email)) {
      throw Invalid.field("email", "That address already has a Parley account: sign in instead.");
    }
    const workspaceId = Number(row.workspace_id);
    const user = await insertUser(tx, {
      workspaceId,
      name: input.name,
      email: row.email,
      passwordHash,
      role: row.role,
      suspended: false,
    });
    await markInvitationAccepted(tx, row.id, now);
    const inbox = row.role === "agent";
    // A workspace that requires two-factor gives no session before the second factor exists.
    const setupFirst = await workspaceRequiresTwoFactor(tx, workspaceId);
    const token = setupFirst ? null : await issueToken(tx, {
      workspaceId,
      userId: Number(user.id),
      name: inbox ? AGENT_TOKEN_NAME : DASHBOARD_TOKEN_NAME,
      ability: inbox ? "agent" : "dashboard",
      deviceName: inbox ? "Web inbox" : "Web dashboard",
      now,
    });
    await recordAudit(tx, {
      workspaceId,
      actor: {
        userId: Number(user.id),
        tokenId: token?.id ?? null,
        label: `${user.name} <${user.email}>`,
        ip: input.ip,
      },
      action: "team.invitation_accepted",
      target: { type: "invitation", id: Number(row.id) },
      details: { email: row.email, role: row.role },
      now,
    });
    return { row, user, token, inbox };
  });
  const base = {
    email: done.row.email,
    role: done.row.role,
    workspace: done.row.workspace_name,
  };
  const signInAt = done.inbox ? "/inbox" as const : "/dashboard" as const;
  if (!done.token) {
    return {
      ...base,
      sign_in_at: signInAt,
      agent_session: null,
      dashboard_session: null,
      two_factor_setup_required: true,
    };
  }
  const token = done.token;
  const workspace = await findWorkspace(deps.sql, Number(done.row.workspace_id));
  if (!workspace) throw new NotFound(GONE);
  const subjects = await signedInSubjects(deps.sql, { user: done.user, workspace });
  if (done.inbox) {
    return {
      ...base,
      sign_in_at: "/inbox",
      agent_session: {
        token: token.plainText,
        ...agentSessionView({
          expiresAt: token.expiresAt,
          deviceName: "Web inbox",
          ...subjects,
        }),
      },
      dashboard_session: null,
      two_factor_setup_required: false,
    };
  }
  return {
    ...base,
    sign_in_at: "/dashboard",
    agent_session: null,
    dashboard_session: {
      token: token.plainText,
      ...await dashboardSessionView(deps.sql, { expiresAt: token.expiresAt, ...subjects }),
    },
    two_factor_setup_required: false,
  };
}
