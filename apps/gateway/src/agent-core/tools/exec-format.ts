import type { ExecResult, WorkspaceChanges } from '@weft/contracts';

/**
 * An ExecResult as text the model (and a person reading the log) can follow: a non-zero exit,
 * timeout or OOM is an error; a writable run names the files it created, changed or deleted.
 */
export function formatExecResult(result: ExecResult, notes: readonly string[] = []): { isError: boolean; output: string } {
  const flags = [
    result.timedOut && 'timed out',
    result.oomKilled && 'killed: out of memory',
    result.stdoutTruncated && `stdout truncated${cut(result.stdoutCutBytes)}`,
    result.stderrTruncated && `stderr truncated${cut(result.stderrCutBytes)}`,
  ].filter((flag): flag is string => typeof flag === 'string');
  const lines = [`exit code: ${result.exitCode ?? 'none (killed)'}`];
  if (flags.length > 0) lines.push(`flags: ${flags.join(', ')}`);
  lines.push(`duration: ${Math.round(result.durationMs)} ms`);
  if (result.image) lines.push(`image: ${result.image}`);
  if (result.changes) lines.push(...describeChanges(result.changes));
  lines.push(...notes);
  lines.push('stdout:', result.stdout === '' ? '(empty)' : result.stdout);
  lines.push('stderr:', result.stderr === '' ? '(empty)' : result.stderr);
  const isError = result.exitCode !== 0 || result.timedOut || result.oomKilled;
  return { isError, output: lines.join('\n') };
}

function cut(bytes: number | undefined): string {
  return bytes ? ` (${bytes} bytes cut from the middle)` : '';
}

function describeChanges(changes: WorkspaceChanges): string[] {
  const kinds = [
    ['created', changes.created],
    ['modified', changes.modified],
    ['deleted', changes.deleted],
  ] as const;
  const lines = kinds.filter(([, paths]) => paths.length > 0).map(([kind, paths]) => `${kind}: ${paths.join(', ')}`);
  if (changes.folders.length > 0) {
    lines.push(`dependency folders changed: ${changes.folders.map((f) => `${f.path}/ (${f.files} files)`).join(', ')}`);
  }
  if (changes.truncated) lines.push('(more files changed than are listed)');
  return lines.length === 0 ? ['files changed: none'] : ['files changed:', ...lines.map((line) => `  ${line}`)];
}
