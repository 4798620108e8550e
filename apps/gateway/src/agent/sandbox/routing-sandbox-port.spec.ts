import { ErrorCode, type ExecRequest, type ExecResult } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import type { ExecOptions } from '../../agent-core/ports';
import { routingSandboxPort } from './routing-sandbox-port';

const result: ExecResult = {
  exitCode: 0,
  stdout: '',
  stderr: '',
  stdoutTruncated: false,
  stderrTruncated: false,
  timedOut: false,
  oomKilled: false,
  durationMs: 1,
};

function setup(egressAllowed = false, workers = true) {
  const short: ExecRequest[] = [];
  const long: Array<{ request: ExecRequest; options?: ExecOptions }> = [];
  const port = routingSandboxPort(
    { exec: async (request) => (short.push(request), result) },
    { run: async (request, options) => (long.push({ request, options }), result), available: async () => workers },
    { thresholdMs: 60_000, longRunTimeoutMs: 600_000, egressAllowed },
  );
  return { port, short, long };
}

describe('routingSandboxPort', () => {
  it('keeps a short command on request/reply, unchanged', async () => {
    const { port, short, long } = setup();
    const request: ExecRequest = { mode: 'command', workspaceId: 'ws_abcdefgh', command: 'ls' };
    await port.exec(request, { signal: new AbortController().signal });
    expect(short).toEqual([request]);
    expect(long).toEqual([]);
  });

  it('queues an install with the long-run timeout, passing the signal and output listener on', async () => {
    const { port, short, long } = setup();
    const options: ExecOptions = { signal: new AbortController().signal, onOutput: () => undefined };
    await port.exec({ mode: 'command', workspaceId: 'ws_abcdefgh', command: 'npm ci' }, options);
    expect(short).toEqual([]);
    expect(long).toEqual([{ request: expect.objectContaining({ command: 'npm ci', timeoutMs: 600_000 }), options }]);
  });

  it('refuses egress when the server does not allow it, naming the setting', async () => {
    const { port, short } = setup(false);
    await expect(port.exec({ mode: 'code', language: 'python', code: '1', network: 'egress' })).rejects.toMatchObject({
      code: ErrorCode.Forbidden,
      message: expect.stringContaining('SANDBOX_EGRESS_ALLOWED'),
    });
    expect(short).toEqual([]);
  });

  it('passes egress through when the server allows it', async () => {
    const { port, short } = setup(true);
    await port.exec({ mode: 'code', language: 'python', code: '1', network: 'egress' });
    expect(short[0]?.network).toBe('egress');
  });

  it('keeps a long command on request/reply when no sandbox worker takes long runs', async () => {
    const { port, short, long } = setup(false, false);
    await port.exec({ mode: 'command', workspaceId: 'ws_abcdefgh', command: 'npm test' });
    expect(short).toHaveLength(1);
    expect(long).toEqual([]);
  });
});
