import type { ExecRequest, ExecResult } from '@weft/contracts';
import type { ExecOptions, SandboxPort } from '../agent-core/ports';
import { QuotaService } from './quota.service';
import { UsageService } from './usage.service';
import { UserLimitsRepository } from './user-limits';

/**
 * Sandbox runs of a user's session: each reserves its timeout against their sandbox seconds for
 * the day before it starts (refused when that does not fit), and its wall-clock time replaces the
 * reservation when it ends (failed and timed-out runs too: the machine was busy all the same).
 * Only commands name their session's owner: code snippets (short, throwaway containers) and runs
 * without a session pass through uncounted.
 */
export function meteredSandboxPort(inner: SandboxPort, limits: UserLimitsRepository, quotas: QuotaService, usage: UsageService): SandboxPort {
  return {
    async exec(request: ExecRequest, options?: ExecOptions) {
      const userId = request.mode === 'command' ? request.session?.ownerId : undefined;
      if (!userId) return inner.exec(request, options);
      const reservation = await quotas.reserveSandboxRun(userId, (await limits.effective(userId)).sandboxSecondsPerDay, request);
      const started = Date.now();
      let result: ExecResult;
      try {
        result = await inner.exec(request, options);
      } catch (error) {
        await usage.recordSandboxRun(userId, Date.now() - started, reservation);
        throw error;
      }
      await usage.recordSandboxRun(userId, result.durationMs, reservation);
      return result;
    },
  };
}
