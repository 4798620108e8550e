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
