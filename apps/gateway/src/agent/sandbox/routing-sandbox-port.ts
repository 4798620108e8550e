import { AppError, ErrorCode, type ExecRequest } from '@weft/contracts';
import type { ExecOptions, SandboxPort } from '../../agent-core/ports';
import { isLongRun } from '../../agent-core/long-run-classifier';
import type { LongRunClient } from './long-run-client';

export interface SandboxRouting {
  /** SANDBOX_LONG_RUN_THRESHOLD_MS */
  thresholdMs: number;
  /** SANDBOX_LONG_RUN_TIMEOUT_MS: what a long run gets unless it asked for more. */
  longRunTimeoutMs: number;
  /** SANDBOX_EGRESS_ALLOWED, checked again at run time: the server may have turned it off since. */
  egressAllowed: boolean;
}

/**
 * Short runs go over request/reply as before; long ones (installs, test suites, long timeouts)
 * through the queue, streamed and cancellable, when a sandbox worker takes long runs.
 */
export function routingSandboxPort(
  short: SandboxPort,
  long: Pick<LongRunClient, 'run' | 'available'>,
  routing: SandboxRouting,
): SandboxPort {
  return {
    async exec(request: ExecRequest, options?: ExecOptions) {
      if (request.network === 'egress' && !routing.egressAllowed) {
        throw new AppError(ErrorCode.Forbidden, 'Network egress for sandbox runs is off on this server (SANDBOX_EGRESS_ALLOWED)');
      }
      if (!isLongRun(request, { thresholdMs: routing.thresholdMs }) || !(await long.available())) return short.exec(request, options);
      const timeoutMs = Math.max(request.timeoutMs ?? 0, routing.longRunTimeoutMs);
      return long.run({ ...request, timeoutMs }, options);
    },
  };
}
