import { ErrorCode, type ToolCall } from '@weft/contracts';

/** Longest arguments summary an audit entry keeps. */
export const MAX_ARGS_CHARS = 200;

/** Arguments that carry file contents (write_file, edit_file) or a program's input: only their size is kept. */
const CONTENT_ARGS: ReadonlySet<string> = new Set(['content', 'edits', 'stdin', 'old', 'new']);

/** Secrets a command line may carry, and what is kept of each. */
const SECRETS: readonly (readonly [RegExp, string])[] = [
  [/\b(weft|sk|pk|rk|ghp|gho|ghs|glpat|xox[abprs]|hf)[-_][A-Za-z0-9_-]{8,}/g, '$1_***'],
  [/\bAKIA[0-9A-Z]{16}\b/g, 'AKIA***'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 ***'],
  [/(:\/\/)[^/\s:@]+:[^/\s@]+@/g, '$1***@'],
  [/\b([A-Za-z0-9_]*(?:key|token|secret|passw(?:or)?d|pwd|auth|credential)[A-Za-z0-9_]*)(\s*[=:]\s*|\s+)("[^"]*"|'[^']*'|\S+)/gi, '$1$2***'],
];

/** Masks what looks like a key, token or password. */
export function maskSecrets(text: string): string {
  return SECRETS.reduce((masked, [pattern, replacement]) => masked.replace(pattern, replacement), text);
}

/**
 * A tool call's arguments as one short line for the audit trail: `command="pytest -q" cwd="."`.
 * File contents are never kept (their length is), secrets are masked, the whole is cut to
 * MAX_ARGS_CHARS.
 */
export function summarizeArgs(call: ToolCall): string {
  const parts = Object.entries(call.arguments).map(([key, value]) => {
    if (CONTENT_ARGS.has(key)) return `${key}=<${JSON.stringify(value ?? '').length} chars>`;
    const text = typeof value === 'string' ? JSON.stringify(maskSecrets(value)) : maskSecrets(JSON.stringify(value) ?? 'null');
    return `${key}=${text.length > MAX_ARGS_CHARS ? `${text.slice(0, MAX_ARGS_CHARS)}…` : text}`;
  });
  const summary = parts.join(' ');
  return summary.length > MAX_ARGS_CHARS ? `${summary.slice(0, MAX_ARGS_CHARS - 1)}…` : summary;
}

/** What a tool's output says of how it ended: the exit code of a command, the error code of a refusal. */
export function outcomeOf(isError: boolean, output: string): { outcome: 'ok' | 'error' | 'denied'; exitCode?: number; errorCode?: string } {
  const exit = /^exit code: (\d+)/.exec(output);
  const exitCode = exit ? Number(exit[1]) : undefined;
  const code = /^([A-Z][A-Z_]*\.[A-Z][A-Z_]*):/.exec(output)?.[1];
  const outcome = !isError ? 'ok' : code === ErrorCode.PermissionDenied ? 'denied' : 'error';
  return { outcome, ...(exitCode !== undefined ? { exitCode } : {}), ...(code ? { errorCode: code } : {}) };
}
