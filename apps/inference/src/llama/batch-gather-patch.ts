interface QueuedDecode {
  sequenceId: number;
  afterBatchAction?: (sequenceStateLength: number) => Promise<void> | void;
}
interface ContextInternals {
  _decodeTokens(decode: QueuedDecode, ...rest: unknown[]): Promise<unknown>;
  /** The sequences with a decode in the queue (node-llama-cpp's own bookkeeping). */
  _queuedDecodeSequenceIds?: Set<number>;
  /** The queue the next batch is taken from, in order. */
  _queuedDecodes?: QueuedDecode[];
}

/** Moves the decode just queued (the last) back to its place by sequence id: the queue stays sorted. */
function keepSortedBySequence(queue: QueuedDecode[] | undefined): void {
  if (!queue) return;
  for (let i = queue.length - 1; i > 0 && (queue[i - 1] as QueuedDecode).sequenceId > (queue[i] as QueuedDecode).sequenceId; i--) {
    [queue[i - 1], queue[i]] = [queue[i] as QueuedDecode, queue[i - 1] as QueuedDecode];
  }
}

/** Per context, the event-loop turn the sequences of the batch just decoded wait for at most. */
const turns = new WeakMap<object, Promise<void>>();
/** Per context and sequence, the batch's wait for that sequence's next decode. */
const requeues = new WeakMap<object, Map<number, () => void>>();

function nextTurn(context: object): Promise<void> {
  let turn = turns.get(context);
  if (!turn) {
    turn = new Promise<void>((resolve) =>
      setImmediate(() => {
        resolve();
        // Kept for the rest of this turn, so the batch's later sequences share it.
        setImmediate(() => turns.delete(context));
      }),
    );
    turns.set(context, turn);
  }
  return turn;
}

/** Resolves when the sequence queues its next decode, or the event loop has turned once. */
function requeuedOrNextTurn(context: ContextInternals, sequenceId: number): Promise<void> | undefined {
  if (context._queuedDecodeSequenceIds?.has(sequenceId)) return undefined;
  let waiting = requeues.get(context);
  if (!waiting) requeues.set(context, (waiting = new Map()));
  const requeued = new Promise<void>((resolve) => waiting.set(sequenceId, resolve));
  return Promise.race([requeued, nextTurn(context)]).finally(() => waiting.delete(sequenceId));
}

/**
 * Two ways node-llama-cpp's batches took more passes over the weights than llama-server's:
 *
 * - Its batch loop decodes a batch, samples each sequence in it, hands every sequence its token
 *   and at once looks for the next batch. The sequence sampled last has not queued its next
 *   token by then (the token first goes through LlamaChat), so it missed the batch and went with
 *   the next one, where again one missed: with 4 generating sequences every batch held 3, and 4
 *   replies of 47 tokens took 62 batches instead of 47. The patch makes the loop wait, after each
 *   batch, until every sequence of the batch has queued its next decode: within the same turn of
 *   the event loop for a sequence still generating, and for one that is done (it queues nothing)
 *   one turn at most, shared by the batch.
 * - node-llama-cpp gives each sequence its own KV stream, and llama.cpp then takes a batch's
 *   sequences in one pass only while their ids ascend by one (`split_equal` with `sequential`):
 *   a batch queued as sequences 7, 6, 5, 4 was four passes. The patch keeps the queue sorted by
 *   sequence id, so the active sequences go in as few passes as their ids allow.
 *
 * On 2 CPU cores, 8 concurrent replies went from ~120 to ~210 tokens/s. Returns false when this
 * node-llama-cpp lacks the method it wraps.
 */
export function patchBatchGathering(lib: Pick<typeof import('node-llama-cpp'), 'LlamaContext'>): boolean {
  const contextProto = lib.LlamaContext.prototype as unknown as ContextInternals & { __weftBatchGathering?: true };
  if (contextProto.__weftBatchGathering) return true;
  if (typeof contextProto._decodeTokens !== 'function') return false;

  const decode = contextProto._decodeTokens;
  contextProto._decodeTokens = function waitForTheBatchToRequeue(this: ContextInternals, queued: QueuedDecode, ...rest: unknown[]) {
    const own = queued.afterBatchAction;
    const { sequenceId } = queued;
    queued.afterBatchAction = async (sequenceStateLength) => {
      await own?.(sequenceStateLength);
      await requeuedOrNextTurn(this, sequenceId);
    };
    const decoded = decode.call(this, queued, ...rest);
    keepSortedBySequence(this._queuedDecodes);
    requeues.get(this)?.get(sequenceId)?.();
    return decoded;
  };
  contextProto.__weftBatchGathering = true;
  return true;
}
