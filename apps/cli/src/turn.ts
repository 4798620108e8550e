import type { StoredSessionEvent } from '@weft/contracts';
import type { ApiClient, PermissionAnswer, TurnOptions } from './api-client';
import { ProtocolError } from './errors';
import type { Output, TurnRenderer } from './render';
import { followEvents } from './sse';

export type TurnOutcome =
  | { readonly status: 'completed'; readonly turnId: string }
  | { readonly status: 'failed'; readonly turnId: string; readonly code: string; readonly message: string };

export interface TurnDeps {
  readonly client: ApiClient;
  readonly renderer: TurnRenderer;
  /** Where `--json` writes JSONL; undefined renders for people instead. */
  readonly jsonOut?: Output;
  /** Told when the event stream dropped and is being resumed. */
  readonly onReconnect?: (attempt: number) => void;
  /**
   * Asked when the agent waits for a permission; no answer (or no asker) leaves the question
   * open, and the gateway denies it when it times out.
   */
  readonly askPermission?: (event: PermissionRequest) => Promise<PermissionAnswer | undefined>;
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
export async function runTurn(deps: TurnDeps, sessionId: string, what: string | TurnStart, signal?: AbortSignal): Promise<TurnOutcome> {
  const { client, renderer, jsonOut } = deps;
  const { lastEventId } = await client.getSession(sessionId);
  const turnId = await startTurn(client, sessionId, typeof what === 'string' ? { message: what } : what);
  const events = followEvents(client, sessionId, {
    after: lastEventId ?? undefined,
    signal,
    onReconnect: (attempt) => deps.onReconnect?.(attempt),
  });
  for await (const { raw, event } of events) {
    if (raw.turnId !== turnId) continue; // another client's turn on the same session
    if (jsonOut) jsonOut.write(`${JSON.stringify(raw)}\n`);
    else if (event) renderer.render(event);
    if (event?.type === 'permission.requested' && deps.askPermission) {
      const answer = await deps.askPermission(event);
      if (answer) await client.answerPermission(sessionId, event.requestId, answer);
    }
    if (event?.type === 'turn.completed') return { status: 'completed', turnId };
    if (event?.type === 'turn.failed') return { status: 'failed', turnId, code: event.code, message: event.message };
    if (event?.type === 'turn.cancelled') return { status: 'failed', turnId, code: 'AGENT.TURN_CANCELLED', message: 'the turn was cancelled' };
  }
  throw new ProtocolError('the event stream ended before the turn did');
}
