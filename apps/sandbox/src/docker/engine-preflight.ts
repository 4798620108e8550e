import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { ContainerRuntime, EngineInfo } from './container-runtime';

export interface PreflightSettings {
  /** SANDBOX_RUNTIME, when set. */
  runtime?: string;
}

/** Raised at boot when the engine cannot give the isolation the config asks for. */
export class EnginePreflightError extends Error {
  constructor(readonly problems: string[]) {
    super(`The sandbox cannot start on this Docker engine:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'EnginePreflightError';
  }
}

/** What is wrong with an engine for sandboxing; empty when nothing is. */
export function engineProblems(info: EngineInfo, settings: PreflightSettings): string[] {
  const problems: string[] = [];
  if (settings.runtime && !info.runtimes.includes(settings.runtime)) {
    problems.push(
      `SANDBOX_RUNTIME=${settings.runtime} is not a runtime this engine knows (it has: ${info.runtimes.join(', ') || 'none'}); ` +
        'install it and register it in the daemon\'s "runtimes", or unset SANDBOX_RUNTIME',
    );
  }
  const seccomp = info.securityOptions.find((option) => option.split(',').includes('name=seccomp'));
  if (!seccomp) {
    problems.push('the engine applies no seccomp profile (it is built or configured without seccomp)');
  } else if (seccomp.split(',').includes('profile=unconfined')) {
    problems.push('the engine\'s default seccomp profile is "unconfined"; remove --seccomp-profile=unconfined from the daemon');
  }
  return problems;
}

/**
 * Checks the engine once at boot. A misconfiguration fails the boot with every problem listed;
 * an engine that is merely unreachable does not (runs report SANDBOX.UNAVAILABLE until it is back).
 */
export async function checkEngine(runtime: ContainerRuntime, settings: PreflightSettings, logger: Logger): Promise<void> {
  let info: EngineInfo;
  try {
    info = await runtime.describeEngine();
  } catch (error) {
    if (error instanceof AppError && error.code === ErrorCode.SandboxUnavailable) {
      logger.warn({ err: error }, 'container engine unreachable at boot; its settings were not checked');
      return;
    }
    throw error;
  }
  const problems = engineProblems(info, settings);
  if (problems.length > 0) throw new EnginePreflightError(problems);
}
