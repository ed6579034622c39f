/**
 * The message rollup's statements (migration 0280, docs/reports.md "How
 * figures stay exact"): one round locks the state row, learns which message
 * ids are final, adds the next range of them to `report_message_quarters`
 * and moves the watermark, all in one transaction. The report reads the
 * rolled-up rows plus the messages above the watermark (db/report_messages.ts).
 */
import type { Sql, Tx } from "./client.ts";

export interface RollupState {
  watermark: number;
  safe_upto: number;
  pending_upto: number | null;
  pending_lockers: string[];
}

export interface RoundOutcome {
  /** The watermark before and after the round: (from, to] was rolled up. */
  from: number;
  to: number;
  /** The highest message id handed out so far: `to` equal to it means caught up. */
  lastId: number;
}

/** The highest message id the sequence has handed out (0 on a fresh database). */
async function lastIssuedId(tx: Tx): Promise<number> {
  const [row] = await tx<{ last: number }[]>`
    SELECT (CASE WHEN is_called THEN last_value ELSE last_value - 1 END)::bigint AS last
      FROM messages_id_seq`;
  return Number(row!.last);
}

/**
 * Transactions other than ours now holding a write lock on `messages`, by
 * virtual transaction id. Every insert takes that lock before it draws its
 * id (each `nextval('messages_id_seq')` is inside the INSERT INTO messages
 * that uses it: db/messages.ts, db/first_turn.ts) and keeps it to its end, so
 * once all of these have ended, every id drawn before this call belongs to a
 * row that has committed or never will.
 */
async function messageWriters(tx: Tx): Promise<string[]> {
  const rows = await tx<{ vxid: string }[]>`
    SELECT DISTINCT virtualtransaction AS vxid FROM pg_locks
     WHERE locktype = 'relation' AND relation = 'messages'::regclass
       AND mode = 'RowExclusiveLock' AND pid IS DISTINCT FROM pg_backend_pid()`;
  return rows.map((r) => r.vxid);
}

/** Whether any of `lockers` (virtual transaction ids such as `3/1234`: no comma) still writes. */
async function stillWriting(tx: Tx, lockers: string[]): Promise<boolean> {
  if (lockers.length === 0) return false;
  const [row] = await tx<{ busy: boolean }[]>`
    SELECT EXISTS (SELECT 1 FROM pg_locks
                    WHERE locktype = 'relation' AND relation = 'messages'::regclass
                      AND virtualtransaction = ANY(string_to_array(${
    lockers.join(",")
  }, ','))) AS busy`;
  return row!.busy;
}

/**
 * The ids known final after this round, updating the pending check in
 * `st`. `alone`: no other transaction can be open (the embedded database's
 * one connection, held by this transaction), so every id drawn is final.
 */
async function finalUpTo(tx: Tx, st: RollupState, alone: boolean, last: number): Promise<number> {
  if (alone) {
    st.pending_upto = null;
    st.pending_lockers = [];
    return st.safe_upto = Math.max(st.safe_upto, last);
  }
  if (st.pending_upto !== null && !await stillWriting(tx, st.pending_lockers)) {
    st.safe_upto = Math.max(st.safe_upto, st.pending_upto);
    st.pending_upto = null;
  }
  if (st.pending_upto === null && last > st.safe_upto) {
    // The sequence first, then the writers: a writer holding an id up to `last` took its lock
    // before drawing it, so it is in the list unless it has already ended.
    st.pending_upto = last;
    st.pending_lockers = await messageWriters(tx);
    if (st.pending_lockers.length === 0) {
      st.safe_upto = last;
      st.pending_upto = null;
    }
  }
  return st.safe_upto;
}

/**
 * One round: under the state row's lock, roll up the final messages with
 * ids in (watermark, watermark + maxIds] (their counts, per bot and per
 * assignee and tag) and move the watermark past them.
 */
export async function rollUpRound(sql: Sql, maxIds: number, alone: boolean): Promise<RoundOutcome> {
  return await sql.begin(async (tx) => {
    const [st] = await tx<RollupState[]>`
      SELECT watermark, safe_upto, pending_upto, pending_lockers
        FROM report_rollup_state WHERE id = 1 FOR UPDATE`;
    const state = st!;
    const from = Number(state.watermark);
    const last = await lastIssuedId(tx);
    const safe = await finalUpTo(tx, state, alone, last);
    const to = Math.max(from, Math.min(safe, from + maxIds));
    if (to > from) {
      await tx`
        INSERT INTO report_message_quarters AS q
          (workspace_id, quarter, chatbot_id, role, n, tokens, cost_micro_cents)
        SELECT m.workspace_id, report_quarter(m.created_at), c.chatbot_id, m.role, count(*),
               sum(m.tokens_in + m.tokens_out), sum(m.cost_micro_cents)
          FROM messages m JOIN conversations c ON c.id = m.conversation_id
         WHERE m.id > ${from} AND m.id <= ${to}
         GROUP BY 1, 2, 3, 4
        ON CONFLICT (workspace_id, quarter, chatbot_id, role) DO UPDATE
          SET n = q.n + EXCLUDED.n, tokens = q.tokens + EXCLUDED.tokens,
              cost_micro_cents = q.cost_micro_cents + EXCLUDED.cost_micro_cents`;
      // The same messages under their conversation's assignee and each of its tags (migration
      // 0300), read in this round's snapshot; a reassignment or a tag since is the triggers'.
      await tx`
        INSERT INTO report_scope_quarters AS q
          (workspace_id, scope, scope_id, quarter, chatbot_id, role, n, tokens, cost_micro_cents)
        SELECT m.workspace_id, k.scope, k.scope_id, report_quarter(m.created_at), c.chatbot_id,
               m.role, count(*), sum(m.tokens_in + m.tokens_out), sum(m.cost_micro_cents)
          FROM messages m JOIN conversations c ON c.id = m.conversation_id
          JOIN LATERAL (SELECT 'agent' AS scope, c.assigned_user_id AS scope_id
                         WHERE c.assigned_user_id IS NOT NULL
                        UNION ALL
                        SELECT 'tag', ct.tag_id FROM conversation_tags ct
                         WHERE ct.conversation_id = c.id) k ON true
         WHERE m.id > ${from} AND m.id <= ${to}
         GROUP BY 1, 2, 3, 4, 5, 6
        ON CONFLICT (workspace_id, scope, scope_id, quarter, chatbot_id, role) DO UPDATE
          SET n = q.n + EXCLUDED.n, tokens = q.tokens + EXCLUDED.tokens,
              cost_micro_cents = q.cost_micro_cents + EXCLUDED.cost_micro_cents`;
    }
    await tx`
      UPDATE report_rollup_state
         SET watermark = ${to}, safe_upto = ${state.safe_upto},
             pending_upto = ${state.pending_upto},
             pending_lockers = string_to_array(${state.pending_lockers.join(",")}, ','),
             rolled_at = now()
       WHERE id = 1`;
    return { from, to, lastId: Math.max(to, last) };
  }) as RoundOutcome;
}
