import { loadConfig, sandboxConfigSchema } from '@weft/config';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { ContainerRuntime, ContainerSpec, RunOptions, RunOutcome } from '../docker/container-runtime';
import { ExecService } from './exec.service';
import { WorkspaceLocator } from './workspace-locator';

class FakeRuntime implements ContainerRuntime {
  readonly runs: Array<{ spec: ContainerSpec; options: RunOptions }> = [];
  async run(spec: ContainerSpec, options: RunOptions): Promise<RunOutcome> {
    this.runs.push({ spec, options });
    return {
      exitCode: 0,
      stdout: 'ok',
      stderr: '',
      stdoutTruncated: false,
      stderrTruncated: false,
      timedOut: false,
      oomKilled: false,
      durationMs: 5,
    };
  }
  async volumeMountpoint(): Promise<string> {
    return '/unused';
  }
  async removeExpired(): Promise<number> {
    return 0;
  }
  async removeOwn(): Promise<void> {}
}

function setup() {
  const config = loadConfig(sandboxConfigSchema, { SANDBOX_TIMEOUT_MS: '7000', SANDBOX_OUTPUT_MAX_BYTES: '99' });
  const runtime = new FakeRuntime();
  const service = new ExecService(config, runtime, new WorkspaceLocator(config, runtime), pino({ level: 'silent' }));
  return { runtime, service };
}

describe('ExecService', () => {
  it('uses the configured timeout and output cap when the request sets none', async () => {
    const { runtime, service } = setup();
    const result = await service.run({ mode: 'code', language: 'python', code: 'print(1)' });
    expect(result.stdout).toBe('ok');
    expect(runtime.runs[0]?.options).toEqual({ stdin: undefined, timeoutMs: 7000, outputMaxBytes: 99 });
  });

  it('passes the request timeout and stdin through', async () => {
    const { runtime, service } = setup();
    await service.run({ mode: 'code', language: 'bash', code: 'cat', stdin: 'in', timeoutMs: 1500 });
    expect(runtime.runs[0]?.options).toMatchObject({ stdin: 'in', timeoutMs: 1500 });
    expect(runtime.runs[0]?.spec.openStdin).toBe(true);
  });
});
