/**
 * Sequence operations that take the context's lock between batches: erasing part of a sequence's
 * KV cache (what LlamaChat does when a prompt diverges from what the sequence holds, so every new
 * session that reuses a shared prefix), and saving, restoring or copying a sequence's state.
 */
const LOCKING_SEQUENCE_METHODS = ['_eraseContextTokenRanges', 'saveStateToFile', 'loadStateFromFile', '_copyStateFromOtherSequence'] as const;

interface QueuedDecode {
  sequenceId: number;
}
interface ContextInternals {
  _decodeTokens(decode: QueuedDecode, ...rest: unknown[]): Promise<unknown>;
}
interface SequenceInternals {
  _context: object;
  _sequenceId: number;
}
type Method = (this: SequenceInternals, ...args: unknown[]) => Promise<unknown>;

/** The sequences of one context whose locking operation waits or runs, and when they are done. */
interface Gate {
  sequences: Map<number, number>;
  open: Promise<void>;
  release: () => void;
}

const gates = new WeakMap<object, Gate>();

function enter(context: object, sequenceId: number): void {
  let gate = gates.get(context);
  if (!gate) {
    let release = () => undefined as void;
    const open = new Promise<void>((resolve) => (release = resolve));
    gate = { sequences: new Map(), open, release };
    gates.set(context, gate);
  }
  gate.sequences.set(sequenceId, (gate.sequences.get(sequenceId) ?? 0) + 1);
}

function leave(context: object, sequenceId: number): void {
  const gate = gates.get(context);
  if (!gate) return;
  const count = (gate.sequences.get(sequenceId) ?? 1) - 1;
  if (count > 0) gate.sequences.set(sequenceId, count);
  else gate.sequences.delete(sequenceId);
  if (gate.sequences.size > 0) return;
  gates.delete(context);
  gate.release();
}

/**
 * node-llama-cpp runs a context's batches in one loop that holds the context's lock for as long
 * as any sequence has a decode queued, and a generating sequence always has its next one queued.
 * So a request whose sequence must first be trimmed (a new session on a shared prefix, a turn
 * whose history differs from the tokens the sequence holds), or whose state is saved or
 * restored, waited for every other generation on the context to end: 13 s for an 8-token
 * prompt beside two long replies on the tiny model. The patch lets such an operation in between
 * two batches: while one waits or runs, the next decodes of the other sequences are held back,
 * so the loop runs out of work after the batch in flight and releases the lock; the operation
 * runs; then the held decodes are queued in their order. The operation's own sequence is never
 * held back (an erase may re-evaluate its sequence). A save or restore first waits for its own
 * sequence's evaluation, holding the others back meanwhile: the worker calls them only on a
 * sequence it has just leased, which is idle. Returns false when this version of
 * node-llama-cpp lacks a method the patch wraps; nothing is changed then.
 */
export function patchContextLockYield(lib: Pick<typeof import('node-llama-cpp'), 'LlamaContext' | 'LlamaContextSequence'>): boolean {
  const contextProto = lib.LlamaContext.prototype as unknown as ContextInternals & { __weftLockYield?: true };
  const sequenceProto = lib.LlamaContextSequence.prototype as unknown as Record<string, Method>;
  if (contextProto.__weftLockYield) return true;
  if (typeof contextProto._decodeTokens !== 'function' || LOCKING_SEQUENCE_METHODS.some((name) => typeof sequenceProto[name] !== 'function')) {
    return false;
  }

  const decode = contextProto._decodeTokens;
  contextProto._decodeTokens = async function heldWhileALockedOperationWaits(this: object, queued: QueuedDecode, ...rest: unknown[]) {
    for (let gate = gates.get(this); gate && !gate.sequences.has(queued.sequenceId); gate = gates.get(this)) await gate.open;
    return decode.call(this, queued, ...rest);
  };

  for (const name of LOCKING_SEQUENCE_METHODS) {
    const original = sequenceProto[name] as Method;
    sequenceProto[name] = async function letInBetweenBatches(this: SequenceInternals, ...args: unknown[]) {
      const { _context: context, _sequenceId: sequenceId } = this;
      enter(context, sequenceId);
      try {
        return await original.apply(this, args);
      } finally {
        leave(context, sequenceId);
      }
    };
  }
  contextProto.__weftLockYield = true;
  return true;
}
