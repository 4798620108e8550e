import type { AuditEntry } from '@weft/contracts';

type Name = (userId: string) => string;

/** A tool call's arguments, or whom an admin action was about and its details. */
export function auditSubject(entry: AuditEntry, name: Name): string {
  if (entry.kind === 'tool') return entry.args ?? '';
  const details = entry.details ? Object.entries(entry.details).filter(([, value]) => value !== null && value !== undefined).map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`) : [];
  return [entry.userId ? name(entry.userId) : '', ...details].filter(Boolean).join(' · ') || '–';
}

/** `allowed by rule Bash(make test:*)`, `denied by Ada`, `denied: nobody answered`. */
export function auditDecision(entry: AuditEntry, name: Name): string {
  if (!entry.decision) return '–';
  const verb = entry.decision === 'allow' ? 'allowed' : 'denied';
  switch (entry.decidedBy) {
    case 'policy':
      return entry.rule ? `${verb} by ${entry.scope ?? ''} rule ${entry.rule}`.replace('  ', ' ') : `${verb} by the default policy`;
    case 'user':
      return `${verb} by ${entry.decider ? name(entry.decider) : 'the user'}`;
    case 'timeout':
      return `${verb}: nobody answered in time`;
    case 'cancel':
      return `${verb}: the turn was cancelled`;
    case undefined:
      return verb;
  }
}

/** `ok, exit 0`, `error, exit 2`, `denied`, `error TOOLS.FILE_NOT_FOUND`. */
export function auditOutcome(entry: AuditEntry): string {
  if (!entry.outcome) return '–';
  if (entry.exitCode !== undefined) return `${entry.outcome}, exit ${entry.exitCode}`;
  return entry.outcome === 'error' && entry.errorCode ? `error ${entry.errorCode}` : entry.outcome;
}
