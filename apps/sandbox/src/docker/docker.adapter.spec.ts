import { ErrorCode } from '@weft/contracts';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { DockerAdapter } from './docker.adapter';

describe('DockerAdapter', () => {
  const adapter = new DockerAdapter('/nonexistent/docker.sock', pino({ level: 'silent' }));

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

  it('reports an unreachable engine when looking up the workspaces volume', async () => {
    await expect(adapter.volumeMountpoint('weft_workspaces')).rejects.toMatchObject({
      code: ErrorCode.SandboxUnavailable,
    });
  });
});
