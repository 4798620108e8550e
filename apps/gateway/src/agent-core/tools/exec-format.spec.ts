import { describe, expect, it } from 'vitest';
import { formatExecResult } from './exec-format';

const base = {
  exitCode: 0,
  stdout: 'hello\n',
  stderr: '',
  stdoutTruncated: false,
  stderrTruncated: false,
  timedOut: false,
  oomKilled: false,
  durationMs: 12.4,
};

describe('formatExecResult', () => {
  it('reports exit code, stdout and stderr', () => {
    const { isError, output } = formatExecResult(base);
    expect(isError).toBe(false);
    expect(output).toContain('exit code: 0');
    expect(output).toContain('stdout:\nhello');
    expect(output).toContain('stderr:\n(empty)');
    expect(output).not.toContain('flags');
  });

  it('flags a timeout, truncation and a killed process as an error', () => {
    const { isError, output } = formatExecResult({ ...base, exitCode: null, timedOut: true, stdoutTruncated: true });
    expect(isError).toBe(true);
    expect(output).toContain('exit code: none (killed)');
    expect(output).toContain('flags: timed out, stdout truncated');
  });

  it('treats a non-zero exit as an error', () => {
    expect(formatExecResult({ ...base, exitCode: 2 }).isError).toBe(true);
  });
});

describe('formatExecResult of a writable run', () => {
  it('names the files it created, changed and deleted, and dependency folders as one line each', () => {
    const { output } = formatExecResult({
      ...base,
      image: 'dev',
      changes: {
        created: ['src/gen.ts'],
        modified: ['package-lock.json'],
        deleted: ['old.txt'],
        folders: [{ path: 'node_modules', files: 42 }],
        truncated: false,
        bytes: 1000,
      },
    });
    expect(output).toContain('image: dev');
    expect(output).toContain('files changed:\n  created: src/gen.ts\n  modified: package-lock.json\n  deleted: old.txt');
    expect(output).toContain('dependency folders changed: node_modules/ (42 files)');
  });

  it('says how much was cut from a capped stream', () => {
    const { output } = formatExecResult({ ...base, stdoutTruncated: true, stdoutCutBytes: 512 });
    expect(output).toContain('flags: stdout truncated (512 bytes cut from the middle)');
  });
});
