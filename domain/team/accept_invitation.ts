/**
 * An invitation link, read and used: the invitee sees the workspace and role,
 * then chooses a name and password; the account is created and the link is
 * spent in one transaction, so a second use finds nothing (404).
 */
import type { Sql } from "../../db/client.ts";
import { findUsableInvitation, markInvitationAccepted } from "../../db/invitations.ts";
import { findUserByEmail, insertUser } from "../../db/users.ts";
import { sha256Hex } from "../auth/secrets.ts";
import { hashPassword } from "../auth/passwords.ts";
import { Invalid, NotFound } from "../errors.ts";

const GONE = "This invitation link is not valid: it was used, revoked or has expired. " +
  "Ask for a new one.";

export async function describeInvitation(sql: Sql, secret: string, now: Date) {
  const row = await findUsableInvitation(sql, await sha256Hex(secret), now);
  if (!row) throw new NotFound(GONE);
  return { workspace: row.workspace_name, email: row.email, role: row.role };
}

export async function acceptInvitation(
  sql: Sql,
  input: { secret: string; name: string; password: string },
  now: Date,
): Promise<{ email: string; role: string; sign_in_at: string }> {
  const hash = await sha256Hex(input.secret);
  const passwordHash = await hashPassword(input.password);
  return await sql.begin(async (tx) => {
    const row = await findUsableInvitation(tx, hash, now, true);
    if (!row) throw new NotFound(GONE);
    if (await findUserByEmail(tx, row.email)) {
      throw Invalid.field("email", "That address already has a Parley account: sign in instead.");
    }
    await insertUser(tx, {
      workspaceId: Number(row.workspace_id),
      name: input.name,
      email: row.email,
      passwordHash,
      role: row.role,
      suspended: false,
    });
    await markInvitationAccepted(tx, row.id, now);
    return {
      email: row.email,
      role: row.role,
      sign_in_at: row.role === "agent" ? "/inbox" : "/dashboard",
    };
  });
}
