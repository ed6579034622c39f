/** A private note on a conversation: for agents only, never sent to the visitor. */
import type { AppDeps } from "../deps.ts";
import { findConversationByPublicId } from "../../db/conversations.ts";
import { insertNote } from "../../db/conversation_notes.ts";
import { timeOfDay } from "../display_time.ts";
import { NotFound } from "../errors.ts";
import { publishEvent } from "../events.ts";
import type { AgentActor } from "./agent_transition.ts";

export interface NoteView {
  id: number;
  body: string;
  author: string;
  at: string;
}

export async function addNote(
  deps: AppDeps,
  actor: AgentActor & { userName: string },
  input: { conversationId: string; body: string; timeZone?: string },
): Promise<NoteView> {
  const conversation = await findConversationByPublicId(
    deps.sql,
    actor.workspaceId,
    input.conversationId,
  );
  if (!conversation) throw new NotFound("Conversation not found.");
  const note = await insertNote(deps.sql, actor.workspaceId, {
    conversationId: conversation.id,
    authorUserId: actor.userId,
    body: input.body,
    now: deps.clock(),
  });
  await publishEvent(deps, {
    type: "note.created",
    workspaceId: actor.workspaceId,
    conversationId: conversation.public_id,
    noteId: note.id,
  });
  return {
    id: note.id,
    body: note.body,
    author: actor.userName,
    at: timeOfDay(note.created_at, input.timeZone),
  };
}
