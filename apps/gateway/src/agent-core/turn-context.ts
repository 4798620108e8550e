import type { InterruptReason, RunTurnJob, SessionEvent } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { InstructionsSummary, TurnPermissions, TurnSession } from './ports';
import type { Usage } from './usage';

/** How the turn is doing, for the BullMQ job's progress (`job.updateProgress`). */
export interface TurnProgressReport {
  phase: 'running' | 'planning' | 'subtask' | 'summary' | 'chain-step';
  index?: number;
  total?: number;
  title?: string;
}

/** What every loop of one turn shares: who and what it is for, its budgets, and the way out to the log. */
export interface TurnContext {
  job: RunTurnJob;
  sessionId: string;
  turnId: string;
  session: TurnSession;
  /** The model the turn talks to: the job's (a task sent to the junior) or the session's. */
  model: string;
  log: Logger;
  emit: (event: SessionEvent) => Promise<void>;
  /** Aborts when the user cancels the turn. */
  cancel: AbortSignal;
  usage: Usage;
  startedAt: number;
  /** Time spent waiting for a person, which the wall-time budget does not count. */
  waitedMs: number;
  permissions: TurnPermissions;
  instructions: InstructionsSummary;
  reportProgress: (report: TurnProgressReport) => Promise<void>;
}

/** What a loop came to: its final text, and the guard rail that stopped it, if one did. */
export interface LoopOutcome {
  text: string;
  iterations: number;
  stopReason?: InterruptReason;
}

export class TurnCancelled extends Error {}

/**
 * Thrown from a permission wait that outlasted its patience: the run stops here, keeping
 * everything stored, and the job is parked until the answer (or the question's deadline) wakes it.
 */
export class TurnParked extends Error {
  constructor(
    readonly requestId: string,
    /** When the question times out: the latest the turn must be woken. */
    readonly wakeAt: number,
  ) {
    super(`turn parked waiting for permission request ${requestId}`);
  }
}
