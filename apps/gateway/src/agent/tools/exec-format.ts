import type { ExecResult } from '@weft/contracts';

/** An ExecResult as text the model can read; a non-zero exit, timeout or OOM is an error. */
export function formatExecResult(result: ExecResult): { isError: boolean; output: string } {
  const flags = [
    result.timedOut && 'timed out',
    result.oomKilled && 'killed: out of memory',
    result.stdoutTruncated && 'stdout truncated',
    result.stderrTruncated && 'stderr truncated',
  ].filter((flag): flag is string => typeof flag === 'string');
  const lines = [`exit code: ${result.exitCode ?? 'none (killed)'}`];
  if (flags.length > 0) lines.push(`flags: ${flags.join(', ')}`);
  lines.push(`duration: ${Math.round(result.durationMs)} ms`);
  lines.push('stdout:', result.stdout === '' ? '(empty)' : result.stdout);
  lines.push('stderr:', result.stderr === '' ? '(empty)' : result.stderr);
  const isError = result.exitCode !== 0 || result.timedOut || result.oomKilled;
  return { isError, output: lines.join('\n') };
}
