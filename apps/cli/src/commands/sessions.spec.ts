import { describe, expect, it } from 'vitest';
import type { SessionSummary, WorkspaceSummary } from '../api-client';
import { MAX_TITLE_CHARS, sessionRows } from './sessions';

const session = (over: Partial<SessionSummary>): SessionSummary => ({
  id: 'ses_1',
  workspaceId: 'ws_1',
  model: 'tiny',
  title: null,
  createdAt: '2026-01-01T10:00:00.000Z',
  activeTurnId: null,
  preview: null,
  lastActivityAt: null,
  ...over,
});
const workspace: WorkspaceSummary = { id: 'ws_1', name: 'my-app', createdAt: '', lastUsedAt: '', files: 1, bytes: 1 };

describe('sessionRows', () => {
  it('puts the most recently active first, each with its title, first prompt or neither', () => {
    const rows = sessionRows(
      [
        session({ id: 'ses_new', title: 'Add login', lastActivityAt: '2026-01-02T09:00:00.000Z' }),
        session({ id: 'ses_old', preview: 'fix  the\ntests', lastActivityAt: '2026-01-03T11:30:59.000Z', activeTurnId: 'turn_1' }),
        session({ id: 'ses_empty', workspaceId: 'ws_gone' }),
      ],
      [workspace],
    );
    expect(rows).toEqual([
      ['ses_old', 'fix the tests', 'tiny', 'my-app', '2026-01-03 11:30 (running)'],
      ['ses_new', 'Add login', 'tiny', 'my-app', '2026-01-02 09:00'],
      ['ses_empty', '(no messages yet)', 'tiny', 'ws_gone (deleted)', '2026-01-01 10:00'],
    ]);
  });

  it('cuts a long title', () => {
    const [row] = sessionRows([session({ preview: 'x'.repeat(200) })], [workspace]);
    expect(row?.[1]).toHaveLength(MAX_TITLE_CHARS);
    expect(row?.[1]?.endsWith('…')).toBe(true);
  });
});
