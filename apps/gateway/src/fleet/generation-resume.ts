import { randomUUID } from 'node:crypto';
import { AppError, ErrorCode, type GenerateRequest } from '@weft/contracts';

/**
 * Times one generation may move: a prompt that crashes the worker evaluating it would otherwise
 * take down every worker of the fleet in turn.
 */
export const MAX_RESUMES = 2;

/** What a caller is told when its generation goes on on another worker. */
export interface GenerationResumed {
  /** Characters of the reply already streamed, which the new worker continues. */
  streamedChars: number;
  /** From the loss to the new worker taking the generation. */
  pausedMs: number;
}

/** Answers of a resumed attempt that mean no live worker took it yet: wait and ask again. */
const NOT_TAKEN = new Set<string>([ErrorCode.InferenceBusy, ErrorCode.NoResponders, ErrorCode.WorkerLost]);

export function notTaken(error: unknown): boolean {
  return error instanceof AppError && NOT_TAKEN.has(error.code) && error.details?.natsUnreachable !== true;
}

/**
 * A generation whose worker died mid-stream can go on elsewhere, unless text streamed under a
 * JSON Schema: the grammar cannot pick up mid-value, and a restart could write other text than
 * the client already has. A tool call in progress streams no text: it restarts from its start.
 */
export function mayResume(error: unknown, request: GenerateRequest, streamed: string, resumes: number): error is AppError {
  if (!(error instanceof AppError) || error.code !== ErrorCode.WorkerLost || resumes >= MAX_RESUMES) return false;
  return !(request.jsonSchema && (streamed !== '' || request.continueFrom !== undefined));
}

/**
 * The same request, sampling settings and seed included, continuing from what streamed: the new
 * worker evaluates it as the start of the reply. A new request id, so that nothing joins or
 * cancels the lost attempt's run under the old one.
 */
export function resumedRequest(request: GenerateRequest, streamed: string): GenerateRequest & { requestId: string } {
  const continueFrom = (request.continueFrom ?? '') + streamed;
  return { ...request, requestId: randomUUID(), continueFrom: continueFrom === '' ? undefined : continueFrom };
}
