import type { ExecOptions } from '../ports';
import type { ToolContext } from './define-tool';
import { MAX_TOOL_OUTPUT_CHARS } from './run-tool-call';

/** Characters of live output one call may add to the log; the result still carries its own (capped) output. */
export const LIVE_OUTPUT_MAX_CHARS = 2 * MAX_TOOL_OUTPUT_CHARS;

/**
 * Relays a long run's output into the session's log as `tool.output`, in order, up to
 * LIVE_OUTPUT_MAX_CHARS per call. `settled()` waits until every chunk is written (so they all
 * precede `tool.completed`) and rethrows a failed write.
 */
export function liveOutput(ctx: ToolContext): { onOutput: ExecOptions['onOutput']; settled: () => Promise<void> } {
  const { emitOutput, callId } = ctx;
  if (!emitOutput || !callId) return { onOutput: undefined, settled: async () => undefined };
  let written = 0;
  let chain = Promise.resolve();
  let failure: unknown;
  return {
    onOutput: (stream, text) => {
      const room = LIVE_OUTPUT_MAX_CHARS - written;
      if (room <= 0) return;
      const part = text.length > room ? text.slice(0, room) : text;
      written += part.length;
      chain = chain.then(() => emitOutput(callId, stream, part)).catch((error: unknown) => {
        failure ??= error;
      });
    },
    settled: async () => {
      await chain;
      if (failure) throw failure;
    },
  };
}
