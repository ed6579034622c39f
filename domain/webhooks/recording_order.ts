/**
 * One conversation's webhook events are delivered in the order they happened
 * (per endpoint, by recording order). Two writers record them: the bus
 * subscriber, just after a new message or conversation commits
 * (event_recorder.ts), and the outbox, inside the transaction of any other
 * change (outbox.ts). So that an outbox event never overtakes a message the
 * subscriber is still recording, an outbox action first waits for this
 * instance's recordings of the conversation to settle (before its
 * transaction: on the embedded database's one connection, waiting inside it
 * would deadlock). Another instance's events reach this one's subscriber
 * through the bus, and its insert waits for theirs on the unique key, so the
 * wait covers them once their event has arrived here.
 */
const chains = new Map<string, Promise<void>>();

/** Run `task` after the conversation's earlier recordings; the returned promise never rejects. */
export function enqueueRecording(
  conversationId: string,
  task: () => Promise<void>,
  onError: (err: unknown) => void,
): void {
  const next = (chains.get(conversationId) ?? Promise.resolve()).then(task).catch(onError);
  chains.set(conversationId, next);
  next.finally(() => chains.get(conversationId) === next && chains.delete(conversationId));
}

/** Resolves once every recording of the conversation queued so far has settled. */
export function recordingsSettled(conversationId: string): Promise<void> | undefined {
  return chains.get(conversationId);
}
