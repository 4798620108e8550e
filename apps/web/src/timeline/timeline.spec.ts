import type { StoredSessionEvent } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { compareStreamIds } from './stream-id';
import { type ToolItem, applyEvents, emptyTimeline } from './timeline';

let seq = 0;
const at = '2026-11-01T10:00:00.000Z';
/** Events of one turn with increasing stream ids, as the log would hold them. */
function ev(event: Record<string, unknown> & { type: StoredSessionEvent['type'] }): StoredSessionEvent {
  seq += 1;
  return { turnId: 'turn_1', at, id: `1700000000000-${seq}`, ...event } as StoredSessionEvent;
}

const call = { id: 'call_1', name: 'run_command', arguments: { command: 'make' } };

function turn(): StoredSessionEvent[] {
  seq = 0;
  return [
    ev({ type: 'message.created', role: 'user', content: 'build it' }),
    ev({ type: 'turn.started', model: 'scripted/x' }),
    ev({ type: 'message.delta', text: 'Let me ' }),
    ev({ type: 'message.delta', text: 'build.' }),
    ev({ type: 'tool.called', call }),
    ev({ type: 'permission.requested', requestId: 'perm_1', callId: 'call_1', call, subject: 'make', reasons: ['runs a command'], suggestedRules: ['Bash(make)'], expiresAt: at }),
    ev({ type: 'permission.decided', callId: 'call_1', tool: 'run_command', decision: 'allow', decidedBy: 'user', storedRules: ['Bash(make)'] }),
    ev({ type: 'tool.output', callId: 'call_1', stream: 'stdout', text: 'step 1\n' }),
    ev({ type: 'tool.output', callId: 'call_1', stream: 'stdout', text: 'step 2\n' }),
    ev({ type: 'tool.completed', callId: 'call_1', name: 'run_command', isError: false, output: 'exit code: 0\nduration: 12 ms\nstdout:\nstep 1\nstep 2\n' }),
    ev({ type: 'message.delta', text: 'Built.' }),
    ev({ type: 'message.completed', content: 'Built.' }),
    ev({ type: 'turn.completed', usage: { promptTokens: 1, completionTokens: 1 }, iterations: 2 }),
  ];
}

describe('the chat timeline', () => {
  it('folds a turn into a message, streamed text, one tool card and the final answer', () => {
    const t = applyEvents(emptyTimeline, turn());
    expect(t.items.map((i) => i.kind)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(t.items[1]).toMatchObject({ text: 'Let me build.', final: false });
    const tool = t.items[2] as ToolItem;
    expect(tool).toMatchObject({ callId: 'call_1', live: 'step 1\nstep 2\n', permission: { requestId: 'perm_1' }, decision: { decision: 'allow' } });
    expect(tool.result?.output).toContain('exit code: 0');
    expect(t.items[3]).toMatchObject({ text: 'Built.', final: true });
    expect(t.activeTurnId).toBeNull();
    expect(t.applied).toBe(13);
  });

  it('shows each event once when a reconnect resends what was already applied', () => {
    const events = turn();
    const first = applyEvents(emptyTimeline, events.slice(0, 9));
    expect(first.activeTurnId).toBe('turn_1');
    // The stream dropped after event 9; the reconnect asks from an older id and gets 6..13 again.
    const resumed = applyEvents(first, events.slice(5));
    expect(resumed).toEqual(applyEvents(emptyTimeline, events));
    expect(applyEvents(resumed, events)).toBe(resumed);
  });

  it('marks the files the latest turn wrote and bumps the files version after file tools', () => {
    seq = 0;
    const write = { id: 'c1', name: 'edit_file', arguments: { path: './src/a.ts', edits: [] } };
    const t = applyEvents(emptyTimeline, [
      ev({ type: 'message.created', role: 'user', content: 'edit' }),
      ev({ type: 'tool.called', call: write }),
      ev({ type: 'tool.completed', callId: 'c1', name: 'edit_file', isError: false, output: 'Edited' }),
    ]);
    expect(t.changedPaths).toEqual(['src/a.ts']);
    expect(t.filesVersion).toBe(1);
    const next = applyEvents(t, [ev({ type: 'message.created', role: 'user', content: 'again' })]);
    expect(next.changedPaths).toEqual([]);
  });

  it("replaces a planning turn's streamed plan, and the subtasks' raw JSON an older gateway streamed, with the plan card", () => {
    seq = 0;
    const json = '{"subtasks": [{"title": "Survey", "description": "list it"}]}';
    const t = applyEvents(emptyTimeline, [
      ev({ type: 'message.created', role: 'user', content: 'survey' }),
      ev({ type: 'turn.started', model: 'scripted/planner' }),
      ev({ type: 'message.delta', text: 'Plan: list the files.' }),
      ev({ type: 'message.delta', text: json }),
      ev({ type: 'plan.created', plan: 'Plan: list the files.', subtasks: [{ title: 'Survey', description: 'list it' }] }),
      ev({ type: 'subtask.started', threadId: 'sub_1', index: 1, total: 1, title: 'Survey' }),
      ev({ type: 'message.delta', text: 'Listing.', threadId: 'sub_1' }),
    ]);
    expect(t.items.map((i) => i.kind)).toEqual(['user', 'plan', 'assistant']);
    expect(t.items.some((i) => i.kind === 'assistant' && i.text.includes('{"subtasks"'))).toBe(false);
    expect(t.items[2]).toMatchObject({ text: 'Listing.', threadId: 'sub_1' });
  });

  it('knows while the model reads its prompt, from the turn start or a result until it writes', () => {
    const events = turn();
    const started = applyEvents(emptyTimeline, events.slice(0, 2));
    expect(started.modelWait).toEqual({ since: at, what: 'your message' });
    expect(started.model).toBe('scripted/x');
    expect(applyEvents(started, events.slice(2, 3)).modelWait).toBeNull();
    const afterTool = applyEvents(emptyTimeline, events.slice(0, 10));
    expect(afterTool.modelWait).toEqual({ since: at, what: 'the result of run_command' });
    expect(applyEvents(emptyTimeline, events).modelWait).toBeNull();
  });

  it('shows a model loading on demand in the wait, without a notice, until the model writes', () => {
    const events = turn();
    const loading = applyEvents(emptyTimeline, [...events.slice(0, 2), ev({ type: 'model.loading', model: 'coder', progress: 0.4 })]);
    expect(loading.modelWait).toEqual({ since: at, what: 'your message', loading: { model: 'coder', progress: 0.4 } });
    expect(loading.items).toEqual(applyEvents(emptyTimeline, events.slice(0, 2)).items);
    expect(applyEvents(loading, [ev({ type: 'message.delta', text: 'Hello.' })]).modelWait).toBeNull();
  });

  it('says a generation went on on another worker, and keeps the text streamed before and after once', () => {
    const events = turn();
    const timeline = applyEvents(emptyTimeline, [
      ...events.slice(0, 3),
      ev({ type: 'generation.resumed', model: 'coder', streamedChars: 7, pausedMs: 2400 }),
      ev({ type: 'message.delta', text: 'build.' }),
    ]);
    const texts = JSON.stringify(timeline.items);
    expect(texts).toContain('went on on another worker after 2.4 s');
    expect(texts.match(/Let me build\./g)).toHaveLength(1);
  });

  it('orders stream ids by time, then sequence', () => {
    expect(compareStreamIds('1700000000000-10', '1700000000000-9')).toBe(1);
    expect(compareStreamIds('1700000000001-0', '1700000000000-99')).toBe(1);
    expect(compareStreamIds('5-5', '5-5')).toBe(0);
  });
});
