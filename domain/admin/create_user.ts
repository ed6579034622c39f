/**
 * Create a user in a workspace. Without a password one is generated and
 * returned once, like the first-run banner: only its bcrypt hash is stored.
 */
import { findUserByEmail, insertUser } from "../../db/users.ts";
import { hashPassword } from "../auth/passwords.ts";
import { type Role, ROLES } from "../auth/permissions.ts";
import { randomSecret } from "../auth/secrets.ts";
import { Conflict, Invalid } from "../errors.ts";
import { type AdminDeps, requireWorkspace } from "./admin_deps.ts";

export interface CreatedUser {
  id: number;
  workspace: string;
  name: string;
  email: string;
  role: Role;
  /** Present only when generated here. */
  password?: string;
}

export async function createUser(
  deps: AdminDeps,
  input: { workspace: string; name: string; email: string; role: string; password?: string },
): Promise<CreatedUser> {
  if (!ROLES.includes(input.role as Role)) {
    throw Invalid.field("role", `The role must be one of ${ROLES.join(", ")}.`);
  }
  const email = input.email.trim().toLowerCase();
  if (!/^[^@\s]+@[^@\s]+$/.test(email) || email.length > 255) {
    throw Invalid.field("email", "The email field must be a valid email address.");
  }
  if (!input.name.trim()) throw Invalid.field("name", "The name field is required.");
  if (input.password !== undefined && input.password.length < 8) {
    throw Invalid.field("password", "The password field must be at least 8 characters.");
  }
  const ws = await requireWorkspace(deps.sql, input.workspace);
  if (await findUserByEmail(deps.sql, email)) {
    throw new Conflict(`A user with e-mail "${email}" already exists.`);
  }
  const generated = input.password === undefined ? randomSecret(12) : undefined;
  const user = await insertUser(deps.sql, {
    workspaceId: ws.id,
    name: input.name.trim(),
    email,
    passwordHash: await hashPassword(input.password ?? generated!),
    role: input.role as Role,
    suspended: false,
  });
  return {
    id: user.id,
    workspace: ws.slug,
    name: user.name,
    email: user.email,
    role: user.role,
    ...(generated ? { password: generated } : {}),
  };
}
