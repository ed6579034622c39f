/**
 * Create or edit one of the workspace's shared canned replies (the ones every
 * agent sees; an agent's own replies stay theirs). Titles are unique in the
 * workspace, so a title in use is refused naming the field.
 */
import type { Executor } from "../../db/client.ts";
import {
  type CannedFields,
  type CannedRow,
  findCanned,
  insertSharedCanned,
  updateSharedCanned,
} from "../../db/canned_replies.ts";
import { Invalid, NotFound } from "../errors.ts";

const taken = (title: string) =>
  Invalid.field("title", `A canned reply titled "${title}" already exists.`);

export async function createSharedCanned(
  sql: Executor,
  workspaceId: number,
  fields: CannedFields,
): Promise<CannedRow> {
  const row = await insertSharedCanned(sql, workspaceId, fields);
  if (!row) throw taken(fields.title);
  return row;
}

export async function updateSharedCannedReply(
  sql: Executor,
  workspaceId: number,
  id: number,
  fields: CannedFields,
): Promise<CannedRow> {
  const row = await updateSharedCanned(sql, workspaceId, id, fields);
  if (row) return row;
  const existing = await findCanned(sql, workspaceId, id);
  if (existing && existing.owner_user_id === null) throw taken(fields.title);
  throw new NotFound("No shared canned reply with that id.");
}
