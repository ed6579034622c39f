/**
 * The agent API's session shape (`{token?, expires_at, device_name, user,
 * company}`), shared by login, refresh and me so the three never drift.
 */
import { roleDisplayName } from "../auth/permissions.ts";
import type { Auth } from "../auth/tokens.ts";

/** Name stored on agent tokens; `device_name` says which app holds one. */
export const AGENT_TOKEN_NAME = "agent";

export interface AgentUserView {
  id: number;
  name: string;
  email: string;
  /** Display form of the role ("Owner", "Agent"). */
  role: string;
  avatar: string | null;
}

export interface AgentSessionView {
  expires_at: string;
  device_name: string | null;
  user: AgentUserView;
  company: { id: number; name: string; plan: string };
}

export function agentSessionView(
  session: Pick<Auth, "user" | "workspace" | "expiresAt" | "deviceName">,
): AgentSessionView {
  return {
    expires_at: session.expiresAt.toISOString(),
    device_name: session.deviceName,
    user: {
      id: session.user.id,
      name: session.user.name,
      email: session.user.email,
      role: roleDisplayName(session.user.role),
      avatar: session.user.avatarUrl,
    },
    company: {
      id: session.workspace.id,
      name: session.workspace.name,
      plan: session.workspace.planCode,
    },
  };
}
