import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { ContainerRuntime, EngineInfo } from './container-runtime';
import { chooseRuntime, type RuntimeChoice, type RuntimeSettings } from './runtime-choice';

export type PreflightSettings = RuntimeSettings;

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
  const named = [
    ...(settings.SANDBOX_RUNTIME === 'auto' ? [] : [[`SANDBOX_RUNTIME=${settings.SANDBOX_RUNTIME}`, settings.SANDBOX_RUNTIME]]),
    ...Object.entries(settings.SANDBOX_IMAGE_RUNTIMES).map(([id, runtime]) => [`SANDBOX_IMAGE_RUNTIMES's ${id}=${runtime}`, runtime]),
  ];
  for (const [setting, runtime] of named) {
    if (runtime && !info.runtimes.includes(runtime)) {
      problems.push(
        `${setting}: ${runtime} is not a runtime this engine knows (it has: ${info.runtimes.join(', ') || 'none'}); ` +
          'install it and register it in the daemon\'s "runtimes" (docs/sandbox.md: gVisor), or set SANDBOX_RUNTIME=auto',
      );
    }
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
 * Checks the engine once at boot and chooses the runtime (SANDBOX_RUNTIME=auto: runsc where the
 * engine lists it). A misconfiguration fails the boot with every problem listed; an engine that is
 * merely unreachable does not (runs report SANDBOX.UNAVAILABLE until it is back).
 */
export async function checkEngine(runtime: ContainerRuntime, settings: PreflightSettings, logger: Logger): Promise<RuntimeChoice> {
  let info: EngineInfo;
  try {
    info = await runtime.describeEngine();
  } catch (error) {
    if (error instanceof AppError && error.code === ErrorCode.SandboxUnavailable) {
      logger.warn({ err: error }, 'container engine unreachable at boot; its settings were not checked');
      return chooseRuntime(settings, undefined);
    }
    throw error;
  }
  const problems = engineProblems(info, settings);
  if (problems.length > 0) throw new EnginePreflightError(problems);
  return chooseRuntime(settings, info);
}
