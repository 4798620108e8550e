import type { AuditEntry } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { auditDecision, auditOutcome, auditSubject } from './audit';

const names = new Map([['usr_ada', 'ada']]);
const name = (id: string) => names.get(id) ?? id;
const tool: AuditEntry = { id: '1-0', at: '2026-11-28T10:00:00.000Z', kind: 'tool', actor: 'usr_ada', action: 'run_command', args: 'command="make test"' };

describe('audit rows', () => {
  it('say who decided a tool call and how it ended', () => {
    expect(auditDecision({ ...tool, decision: 'allow', decidedBy: 'policy', rule: 'Bash(make test:*)', scope: 'server' }, name)).toBe('allowed by server rule Bash(make test:*)');
    expect(auditDecision({ ...tool, decision: 'deny', decidedBy: 'user', decider: 'usr_ada' }, name)).toBe('denied by ada');
    expect(auditDecision({ ...tool, decision: 'deny', decidedBy: 'timeout' }, name)).toBe('denied: nobody answered in time');
    expect(auditOutcome({ ...tool, outcome: 'error', exitCode: 2 })).toBe('error, exit 2');
    expect(auditOutcome({ ...tool, outcome: 'denied', errorCode: 'AGENT.PERMISSION_DENIED' })).toBe('denied');
  });

  it("names the user an admin action was about, a deleted one by id", () => {
    expect(auditSubject({ ...tool, kind: 'admin', action: 'role.set', userId: 'usr_ada', details: { role: 'admin' } }, name)).toBe('ada · role: admin');
    expect(auditSubject({ ...tool, kind: 'admin', action: 'user.deleted', userId: 'usr_gone' }, name)).toBe('usr_gone');
  });
});
