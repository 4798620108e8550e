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

const auto = { SANDBOX_RUNTIME: 'auto', SANDBOX_IMAGE_RUNTIMES: {} } as const;

describe('engineProblems', () => {
  it('accepts an engine with the default seccomp profile and a known runtime', () => {
    expect(engineProblems(healthy, auto)).toEqual([]);
    expect(engineProblems(healthy, { ...auto, SANDBOX_RUNTIME: 'runc' })).toEqual([]);
  });

  it('names a runtime the engine does not know, with the ones it does', () => {
    const [problem] = engineProblems(healthy, { ...auto, SANDBOX_RUNTIME: 'runsc' });
    expect(problem).toContain('SANDBOX_RUNTIME=runsc');
    expect(problem).toContain('io.containerd.runc.v2, runc');
  });

  it("names an image's own runtime the engine does not know", () => {
    const [problem] = engineProblems(healthy, { ...auto, SANDBOX_IMAGE_RUNTIMES: { go: 'runsc' } });
    expect(problem).toContain("SANDBOX_IMAGE_RUNTIMES's go=runsc");
  });

  it('refuses an engine without seccomp or whose default profile is unconfined', () => {
    expect(engineProblems({ ...healthy, securityOptions: ['name=apparmor'] }, auto)).toHaveLength(1);
    expect(engineProblems({ ...healthy, securityOptions: ['name=seccomp,profile=unconfined'] }, auto)[0]).toContain(
      'unconfined',
    );
  });
});

describe('checkEngine', () => {
  const logger = pino({ level: 'silent' });

  it('fails the boot with every problem listed', async () => {
    const check = checkEngine(engine(async () => ({ runtimes: ['runc'], securityOptions: [] })), { ...auto, SANDBOX_RUNTIME: 'runsc' }, logger);
    await expect(check).rejects.toBeInstanceOf(EnginePreflightError);
    await expect(check).rejects.toMatchObject({ problems: [expect.stringContaining('runsc'), expect.stringContaining('seccomp')] });
  });

  it('still boots when the engine is unreachable, leaving auto to the engine', async () => {
    const down = engine(async () => {
      throw new AppError(ErrorCode.SandboxUnavailable, 'down', {}, true);
    });
    await expect(checkEngine(down, { ...auto, SANDBOX_RUNTIME: 'runsc' }, logger)).resolves.toMatchObject({ runtime: 'runsc' });
    expect((await checkEngine(down, auto, logger)).runtime).toBeUndefined();
  });

  it('chooses runsc under auto on an engine that lists it', async () => {
    const gvisor = engine(async () => ({ ...healthy, runtimes: ['runc', 'runsc'] }));
    await expect(checkEngine(gvisor, auto, logger)).resolves.toMatchObject({ runtime: 'runsc', gvisorListed: true });
  });
});
