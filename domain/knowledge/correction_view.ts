/** A correction as the agent and dashboard APIs show it. */
import type { CorrectionRow } from "../../db/knowledge_corrections.ts";

export interface CorrectionView {
  id: number;
  /** The Q&A knowledge source holding it: edited and deleted as that source. */
  source_id: number;
  question: string;
  answer: string;
  /** The source's indexing state: `ready` once the next visitor can be answered from it. */
  status: string;
  chunk_count: number;
  /** The conversation it was made in (public id); null once retention has deleted that conversation. */
  conversation_id: string | null;
  /** The AI reply it corrects; null once that message is gone. */
  message_id: number | null;
  corrected_by: string;
  created_at: string;
  updated_at: string;
}

export function correctionView(r: CorrectionRow): CorrectionView {
  return {
    id: r.id,
    source_id: r.source_id,
    question: r.question,
    answer: r.answer,
    status: r.status,
    chunk_count: r.chunk_count,
    conversation_id: r.conversation_public_id,
    message_id: r.message_id,
    corrected_by: r.corrected_by_name,
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}
