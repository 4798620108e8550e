import type { StoredSessionEvent } from '@weft/contracts';
import type { ApiClient, PermissionAnswer, TurnOptions } from './api-client';
import { ApiError, ProtocolError } from './errors';
import type { Output, TurnRenderer } from './render';
import { followEvents } from './sse';

/** How a turn ended, with what the end-of-turn summary needs. */
export type TurnOutcome = TurnEnd &
  (
    | { readonly status: 'completed' }
    | { readonly status: 'failed'; readonly code: string; readonly message: string }
    | { readonly status: 'cancelled'; readonly by?: string }
  );

interface TurnEnd {
  readonly turnId: string;
  readonly workspaceId: string;
  /** A call that may have changed the workspace's files succeeded. */
  readonly touchedFiles: boolean;
}

/** Tools that write to the workspace (run_command and execute_code may, when the session allows writes). */
export const FILE_CHANGING_TOOLS: ReadonlySet<string> = new Set([
  'write_file',
  'edit_file',
  'create_directory',
  'move_file',
  'delete_file',
  'run_command',
  'execute_code',
]);

export interface TurnDeps {
  readonly client: ApiClient;
  readonly renderer: TurnRenderer;
  /** Where `--json` writes JSONL; undefined renders for people instead. */
  readonly jsonOut?: Output;
  /** Told when the event stream dropped and is being resumed. */
  readonly onReconnect?: (attempt: number) => void;
  /** Told when asking the gateway to cancel the turn failed (following goes on). */
  readonly onCancelFailed?: (error: unknown) => void;
  /**
   * Asked when the agent waits for a permission; no answer (or no asker) leaves the question
   * open, and the gateway denies it when it times out. `signal` aborts when the turn is being
   * cancelled or left. An asker that throws ends the turn: it is cancelled, then the error rethrown.
   */
  readonly askPermission?: (event: PermissionRequest, signal: AbortSignal) => Promise<PermissionAnswer | undefined>;
  /** Told each event of the turn as it passes (a script's result line is built from them). */
  readonly onEvent?: (event: StoredSessionEvent) => void;
  /** The asker shows the question itself (the call, its preview, why it asks): the event's own line is not printed as well. */
  readonly askerShowsRequest?: boolean;
}

/** How the person at the terminal stops a turn (see TurnInterrupts). */
export interface TurnControl {
  /** Aborted: the gateway is asked to cancel the turn, which is followed to its `turn.cancelled`. */
  readonly cancel?: AbortSignal;
  /** Aborted: following stops at once and runTurn rejects with the signal's reason. */
  readonly leave?: AbortSignal;
}

export type PermissionRequest = Extract<StoredSessionEvent, { type: 'permission.requested' }>;

/** What starts a turn: a message (in planning mode, or to the junior, where asked), or a chain with its inputs. */
export type TurnStart =
  | { readonly message: string; readonly options?: TurnOptions }
  | { readonly chain: string; readonly inputs: Readonly<Record<string, string>> };

function startTurn(client: ApiClient, sessionId: string, start: TurnStart): Promise<string> {
  if ('chain' in start) return client.runChain(sessionId, start.chain, start.inputs);
  return client.postMessage(sessionId, start.message, start.options);
}

/**
 * Starts one turn and follows it to the end. Reads `lastEventId` before starting, so no event of
 * the turn can slip between the post and the subscription (docs/api.md).
 */
export async function runTurn(deps: TurnDeps, sessionId: string, what: string | TurnStart, control: TurnControl = {}): Promise<TurnOutcome> {
  const { client, renderer, jsonOut } = deps;
  const { lastEventId, workspaceId } = await client.session(sessionId);
  const turnId = await startTurn(client, sessionId, typeof what === 'string' ? { message: what } : what);
  const cancelTurn = (): Promise<void> =>
    client.cancelTurn(sessionId, turnId).catch((error: unknown) => {
      // 409: the turn ended meanwhile, and its end is on its way down the stream.
      if (!(error instanceof ApiError && error.status === 409)) deps.onCancelFailed?.(error);
    });
  const stopWatching = whenAborted(control.cancel, () => void cancelTurn());
  const questionsEnd = AbortSignal.any([control.cancel, control.leave].filter((s): s is AbortSignal => s !== undefined));
  let touchedFiles = false;
  try {
    const events = followEvents(client, sessionId, {
      after: lastEventId ?? undefined,
      signal: control.leave,
      onReconnect: (attempt) => deps.onReconnect?.(attempt),
    });
    for await (const { raw, event } of events) {
      if (raw.turnId !== turnId) continue; // another client's turn on the same session
      if (event) deps.onEvent?.(event);
      if (jsonOut) jsonOut.write(`${JSON.stringify(raw)}\n`);
      else if (event && !(event.type === 'permission.requested' && deps.askerShowsRequest)) renderer.render(event);
      if (event?.type === 'tool.completed' && !event.isError && FILE_CHANGING_TOOLS.has(event.name)) touchedFiles = true;
      if (event?.type === 'permission.requested' && deps.askPermission) {
        const answer = await ask(deps.askPermission, event, questionsEnd, cancelTurn);
        if (answer) await client.answerPermission(sessionId, event.requestId, answer);
      }
      const end = { turnId, workspaceId, touchedFiles };
      if (event?.type === 'turn.completed') return { ...end, status: 'completed' };
      if (event?.type === 'turn.failed') return { ...end, status: 'failed', code: event.code, message: event.message };
      if (event?.type === 'turn.cancelled') return { ...end, status: 'cancelled', by: event.userId };
    }
  } finally {
    stopWatching();
  }
  throw new ProtocolError('the event stream ended before the turn did');
}

async function ask(
  asker: NonNullable<TurnDeps['askPermission']>,
  event: PermissionRequest,
  signal: AbortSignal,
  cancelTurn: () => Promise<void>,
): Promise<PermissionAnswer | undefined> {
  try {
    return await asker(event, signal);
  } catch (error) {
    if (signal.aborted) return undefined; // cancelled or left: the question closes with the turn
    await cancelTurn(); // no one will answer it: the turn must not wait for the timeout
    throw error;
  }
}

/** Calls `then` once when `signal` aborts (at once if it already has); returns a function that stops watching. */
function whenAborted(signal: AbortSignal | undefined, then: () => void): () => void {
  if (!signal) return () => undefined;
  if (signal.aborted) {
    then();
    return () => undefined;
  }
  signal.addEventListener('abort', then, { once: true });
  return () => signal.removeEventListener('abort', then);
}
