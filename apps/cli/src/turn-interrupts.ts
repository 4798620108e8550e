import type { TurnControl } from './turn';

/** What a Ctrl-C did. */
export type InterruptAction = 'cancel' | 'leave';

/**
 * What Ctrl-C means: during a turn, the first press asks the gateway to cancel the turn (and
 * waits for it to end), the next one stops waiting and leaves; with no turn running it leaves.
 */
export class TurnInterrupts {
  private turn?: { readonly cancel: AbortController; readonly leave: AbortController };

  /** The signals one turn is followed under, until `endTurn`. */
  beginTurn(): TurnControl {
    const turn = { cancel: new AbortController(), leave: new AbortController() };
    this.turn = turn;
    return { cancel: turn.cancel.signal, leave: turn.leave.signal };
  }

  endTurn(): void {
    this.turn = undefined;
  }

  get running(): boolean {
    return this.turn !== undefined;
  }

  /** Whether the running turn was asked to stop with Ctrl-C. */
  get cancelRequested(): boolean {
    return this.turn?.cancel.signal.aborted ?? false;
  }

  press(): InterruptAction {
    if (!this.turn) return 'leave';
    if (!this.turn.cancel.signal.aborted) {
      this.turn.cancel.abort();
      return 'cancel';
    }
    this.turn.leave.abort();
    return 'leave';
  }
}
