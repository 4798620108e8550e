import { ErrorCode } from '@weft/contracts';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DockerAdapter } from './docker.adapter';

describe('DockerAdapter', () => {
  const adapter = new DockerAdapter(
    { socketPath: '/nonexistent/docker.sock', instanceId: 'unit' },
    pino({ level: 'silent' }),
  );

  it('reports an unreachable engine as a retryable SANDBOX.UNAVAILABLE', async () => {
    const spec = {
      image: 'img',
      cmd: ['true'],
      user: '10001:10001',
      workingDir: '/tmp',
      env: {},
      labels: {},
      limits: { memoryBytes: 1, nanoCpus: 1, pidsLimit: 1, tmpfsBytes: 1, nofile: 1, fileSizeBytes: 1 },
      openStdin: false,
    };
    await expect(adapter.run(spec, { timeoutMs: 1000, outputMaxBytes: 10 })).rejects.toMatchObject({
      code: ErrorCode.SandboxUnavailable,
      retryable: true,
    });
  });

  it('reports an unreachable engine when asked to describe itself', async () => {
    await expect(adapter.describeEngine()).rejects.toMatchObject({ code: ErrorCode.SandboxUnavailable });
  });

  it('refuses to hand a job to a warm container it does not hold', async () => {
    const stranger = { id: 'abc', stopped: Promise.resolve() };
    await expect(adapter.runWarm(stranger, ['true'], { timeoutMs: 1000, outputMaxBytes: 10 })).rejects.toThrow(
      /unknown or already used/,
    );
  });

  it('reports an unreachable engine when looking up the workspaces volume', async () => {
    await expect(adapter.volumeMountpoint('weft_workspaces')).rejects.toMatchObject({
      code: ErrorCode.SandboxUnavailable,
    });
  });
});
