import { AppError, ErrorCode } from '@weft/contracts';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ContainerRuntime, EngineInfo } from './container-runtime';
import { checkEngine, EnginePreflightError, engineProblems } from './engine-preflight';

const healthy: EngineInfo = {
  runtimes: ['io.containerd.runc.v2', 'runc'],
  securityOptions: ['name=seccomp,profile=default'],
};

function engine(describe: () => Promise<EngineInfo>): ContainerRuntime {
  return { describeEngine: describe } as unknown as ContainerRuntime;
}

describe('engineProblems', () => {
  it('accepts an engine with the default seccomp profile and a known runtime', () => {
    expect(engineProblems(healthy, {})).toEqual([]);
    expect(engineProblems(healthy, { runtime: 'runc' })).toEqual([]);
  });

  it('names a runtime the engine does not know, with the ones it does', () => {
    const [problem] = engineProblems(healthy, { runtime: 'runsc' });
    expect(problem).toContain('SANDBOX_RUNTIME=runsc');
    expect(problem).toContain('io.containerd.runc.v2, runc');
  });

  it('refuses an engine without seccomp or whose default profile is unconfined', () => {
    expect(engineProblems({ ...healthy, securityOptions: ['name=apparmor'] }, {})).toHaveLength(1);
    expect(engineProblems({ ...healthy, securityOptions: ['name=seccomp,profile=unconfined'] }, {})[0]).toContain(
      'unconfined',
    );
  });
});

describe('checkEngine', () => {
  const logger = pino({ level: 'silent' });

  it('fails the boot with every problem listed', async () => {
    const check = checkEngine(engine(async () => ({ runtimes: ['runc'], securityOptions: [] })), { runtime: 'runsc' }, logger);
    await expect(check).rejects.toBeInstanceOf(EnginePreflightError);
    await expect(check).rejects.toMatchObject({ problems: [expect.stringContaining('runsc'), expect.stringContaining('seccomp')] });
  });

  it('still boots when the engine is unreachable', async () => {
    const down = engine(async () => {
      throw new AppError(ErrorCode.SandboxUnavailable, 'down', {}, true);
    });
    await expect(checkEngine(down, { runtime: 'runsc' }, logger)).resolves.toBeUndefined();
  });
});
