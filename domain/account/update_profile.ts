/**
 * A person changes their own name and e-mail. A new e-mail signs them in from
 * then on, so it asks for the current password (422 on `current_password`
 * when it is missing or wrong); a taken address is a 422 on `email`. One
 * `profile.changed` row naming the fields changed, never their values' secrets.
 */
import type { Sql } from "../../db/client.ts";
import { findUser, findUserByEmail, setUserProfile } from "../../db/users.ts";
import type { Auth } from "../auth/tokens.ts";
import { verifyPassword } from "../auth/passwords.ts";
import { actorOf, recordAudit } from "../audit/record_audit.ts";
import { Invalid, NotFound } from "../errors.ts";

export interface ProfileView {
  id: number;
  name: string;
  email: string;
  role: string;
}

export async function showProfile(sql: Sql, auth: Auth): Promise<ProfileView> {
  const user = await findUser(sql, auth.workspace.id, auth.user.id);
  if (!user) throw new NotFound("No such user.");
  return { id: Number(user.id), name: user.name, email: user.email, role: user.role };
}

export async function updateProfile(
  sql: Sql,
  auth: Auth,
  input: { name?: string; email?: string; currentPassword?: string },
  ip: string,
  now: Date,
): Promise<ProfileView> {
  const user = await findUser(sql, auth.workspace.id, auth.user.id);
  if (!user) throw new NotFound("No such user.");
  const name = input.name ?? user.name;
  const email = (input.email ?? user.email).toLowerCase();
  const emailChanged = email !== user.email;
  if (emailChanged) {
    if (!input.currentPassword) {
      throw Invalid.field("current_password", "Enter your current password to change your e-mail.");
    }
    if (!(await verifyPassword(input.currentPassword, user.password_hash))) {
      throw Invalid.field("current_password", "The current password is not correct.");
    }
  }
  const changed = [name !== user.name ? "name" : null, emailChanged ? "email" : null]
    .filter((f): f is string => f !== null);
  if (changed.length === 0) return await showProfile(sql, auth);
  await sql.begin(async (tx) => {
    if (emailChanged) {
      const holder = await findUserByEmail(tx, email);
      if (holder && Number(holder.id) !== auth.user.id) {
        throw Invalid.field("email", "That address already has a Parley account.");
      }
    }
    await setUserProfile(tx, auth.workspace.id, auth.user.id, { name, email });
    await recordAudit(tx, {
      workspaceId: auth.workspace.id,
      actor: actorOf(auth, ip),
      action: "profile.changed",
      target: { type: "user", id: auth.user.id },
      details: {
        fields: changed,
        ...(emailChanged ? { old_email: user.email, new_email: email } : {}),
      },
      now,
    });
  }).catch((err) => {
    // Two people claiming one address at once: the unique index decides.
    if ((err as { code?: string }).code === "23505") {
      throw Invalid.field("email", "That address already has a Parley account.");
    }
    throw err;
  });
  return { id: auth.user.id, name, email, role: user.role };
}
