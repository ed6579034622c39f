/** Suspend or restore one account: its tokens answer 403 while suspended. */
import { setUserSuspended as setRow } from "../../db/users.ts";
import { type AdminDeps, requireUser } from "./admin_deps.ts";

export async function setUserSuspended(
  deps: AdminDeps,
  input: { email: string; suspended: boolean },
): Promise<{ email: string; suspended: boolean }> {
  const user = await requireUser(deps.sql, input.email);
  await setRow(deps.sql, user.workspace_id, user.id, input.suspended);
  return { email: user.email, suspended: input.suspended };
}
