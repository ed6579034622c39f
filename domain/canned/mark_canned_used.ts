/**
 * An agent inserted a canned reply: count it, so the list keeps ranking the
 * most used first. Another agent's private reply is off limits (403).
 */
import type { AppDeps } from "../deps.ts";
import { countCannedUse, findCanned } from "../../db/canned_replies.ts";
import { Forbidden, NotFound } from "../errors.ts";

export async function markCannedUsed(
  deps: AppDeps,
  actor: { workspaceId: number; userId: number },
  cannedId: number,
): Promise<{ ok: boolean }> {
  const canned = await findCanned(deps.sql, actor.workspaceId, cannedId);
  if (!canned) throw new NotFound("Canned reply not found.");
  if (canned.owner_user_id !== null && canned.owner_user_id !== actor.userId) {
    throw new Forbidden("This canned reply belongs to another agent and is not shared.");
  }
  await countCannedUse(deps.sql, actor.workspaceId, canned.id);
  return { ok: true };
}
