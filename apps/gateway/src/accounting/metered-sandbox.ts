import type { ExecRequest } from '@weft/contracts';
import type { ExecOptions, SandboxPort } from '../agent/ports';
import { QuotaService } from './quota.service';
import { UsageService } from './usage.service';
import { UserLimitsRepository } from './user-limits';

/**
 * Sandbox runs of a user's session: refused once their sandbox seconds for the day are spent,
 * and their wall-clock time counted when they end (failed and timed-out runs too: the machine
 * was busy all the same). Only commands name their session's owner: code snippets (short,
 * throwaway containers) and runs without a session pass through uncounted.
 */
export function meteredSandboxPort(inner: SandboxPort, limits: UserLimitsRepository, quotas: QuotaService, usage: UsageService): SandboxPort {
  return {
    async exec(request: ExecRequest, options?: ExecOptions) {
      const userId = request.mode === 'command' ? request.session?.ownerId : undefined;
      if (!userId) return inner.exec(request, options);
      await quotas.assertSandboxTimeLeft(userId, (await limits.effective(userId)).sandboxSecondsPerDay);
      const started = Date.now();
      try {
        const result = await inner.exec(request, options);
        await usage.recordSandboxRun(userId, result.durationMs);
        return result;
      } catch (error) {
        await usage.recordSandboxRun(userId, Date.now() - started);
        throw error;
      }
    },
  };
}
