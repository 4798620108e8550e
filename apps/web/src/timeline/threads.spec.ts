import type { StoredSessionEvent } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { foldThreads } from './threads';
import { type PlanItem, applyEvents, emptyTimeline } from './timeline';

let seq = 0;
const at = '2026-11-01T10:00:00.000Z';
function ev(event: Record<string, unknown> & { type: StoredSessionEvent['type'] }): StoredSessionEvent {
  seq += 1;
  return { turnId: 'turn_1', at, id: `1700000000000-${seq}`, ...event } as StoredSessionEvent;
}
const list = { id: 'call_1', name: 'list_directory', arguments: { path: '.' } };
const delegate = { id: 'call_2', name: 'delegate', arguments: { task: 'write the tests' } };

/** A planning turn of two subtasks, the first listing the workspace, as the planner emits it (indexes from 1). */
function planningTurn(): StoredSessionEvent[] {
  seq = 0;
  return [
    ev({ type: 'message.created', role: 'user', content: 'survey it' }),
    ev({ type: 'turn.started', model: 'scripted/planner' }),
    ev({ type: 'plan.created', plan: 'Survey, then report.', subtasks: [{ title: 'Survey', description: 'List the files.' }, { title: 'Report', description: 'Say what is there.' }] }),
    ev({ type: 'subtask.started', threadId: 'sub_1', index: 1, total: 2, title: 'Survey' }),
    ev({ type: 'message.delta', threadId: 'sub_1', text: 'Listing.' }),
    ev({ type: 'tool.called', threadId: 'sub_1', call: list }),
    ev({ type: 'tool.completed', threadId: 'sub_1', callId: 'call_1', name: 'list_directory', isError: false, output: 'src/' }),
    ev({ type: 'subtask.completed', threadId: 'sub_1', index: 1, total: 2, title: 'Survey', status: 'completed', summary: 'Listed the top level.' }),
    ev({ type: 'subtask.started', threadId: 'sub_2', index: 2, total: 2, title: 'Report' }),
    ev({ type: 'message.delta', threadId: 'sub_2', text: 'Only src/.' }),
  ];
}

describe('a planning turn in the chat', () => {
  it('shows the plan once, with each subtask pending, running or done in place', () => {
    const t = applyEvents(emptyTimeline, planningTurn());
    const plans = t.items.filter((i): i is PlanItem => i.kind === 'plan');
    expect(plans).toHaveLength(1);
    expect(plans[0]?.subtasks).toEqual([
      { title: 'Survey', description: 'List the files.', status: 'completed', threadId: 'sub_1', summary: 'Listed the top level.' },
      { title: 'Report', description: 'Say what is there.', status: 'running', threadId: 'sub_2' },
    ]);
  });

  it("folds each subtask's work under one entry named after it, after the plan", () => {
    const entries = foldThreads(applyEvents(emptyTimeline, planningTurn()).items);
    expect(entries.map((e) => (e.kind === 'item' ? e.item.kind : e.label))).toEqual(['user', 'plan', 'Subtask 1 of 2: Survey', 'Subtask 2 of 2: Report']);
    const survey = entries[2];
    expect(survey?.kind === 'thread' && survey.items.map((i) => i.kind)).toEqual(['assistant', 'tool']);
  });
});

describe('a delegation in the chat', () => {
  it("keeps the hand-off and the report in the conversation and folds the junior's steps between them", () => {
    seq = 0;
    const events = [
      ev({ type: 'message.created', role: 'user', content: 'add tests' }),
      ev({ type: 'turn.started', model: 'scripted/senior' }),
      ev({ type: 'tool.called', call: delegate }),
      ev({ type: 'delegation.started', threadId: 'del_call_2', callId: 'call_2', from: 'senior', to: 'junior', task: 'write the tests' }),
      ev({ type: 'message.delta', threadId: 'del_call_2', text: 'Writing.' }),
      ev({ type: 'tool.called', threadId: 'del_call_2', call: list }),
      ev({ type: 'delegation.completed', threadId: 'del_call_2', callId: 'call_2', from: 'senior', to: 'junior', status: 'completed', result: 'Tests written.' }),
      ev({ type: 'tool.completed', callId: 'call_2', name: 'delegate', isError: false, output: 'Tests written.' }),
    ];
    const entries = foldThreads(applyEvents(emptyTimeline, events).items);
    expect(entries.map((e) => (e.kind === 'item' ? e.item.kind : e.label))).toEqual(['user', 'tool', 'notice', "The junior's work", 'notice']);
  });
});
