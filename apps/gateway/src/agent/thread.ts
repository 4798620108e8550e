import type { ThreadRef } from '../agent-core/ports';

/**
 * The key a generation carries for KV-cache reuse and worker affinity: each conversation has its
 * own prefix, so a delegated or subtask loop gets its own cache entry beside the session's.
 */
export function inferenceSessionKey(thread: ThreadRef): string {
  return thread.threadId ? `${thread.sessionId}:${thread.threadId}` : thread.sessionId;
}

/** The conversation a delegated call runs in; derived from the call id, so a resumed run finds it. */
export function delegationThreadId(callId: string): string {
  return `del_${callId}`;
}

/** The conversation of a planning turn's subtask (1-based, as shown to people). */
export function subtaskThreadId(turnId: string, index: number): string {
  return `sub_${turnId}_${index}`;
}
