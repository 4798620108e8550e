import { describe, expect, it } from 'vitest';
import { SESSION, TURN, setup, call } from './test/turn-runner-world';

describe('TurnRunner delegation', () => {
  const roles = { tiny: ['senior'], little: ['junior'] };

  it('gives a senior the delegate tool; the junior runs its own loop and its answer goes back to the senior for review', async () => {
    const t = setup(
      [
        { toolCalls: [call('delegate', { task: 'add a test for parse()' }, 'call_d')] },
        { toolCalls: [call('write_file', { path: 'parse.test.ts', content: 'test' }, 'call_j')] },
        { text: 'Added parse.test.ts.' },
        { text: 'The junior added a test; I checked it.' },
      ],
      { roles },
    );
    await t.run();
    const [senior, junior, juniorAgain, review] = t.inference.requests;
    expect(senior?.tools?.map((tool) => tool.name)).toContain('delegate');
    expect(junior).toMatchObject({ model: 'little', sessionId: `${SESSION}:del_call_d` });
    expect(junior?.tools?.map((tool) => tool.name)).not.toContain('delegate');
    expect(junior?.messages.at(-1)).toEqual({ role: 'user', content: 'add a test for parse()' });
    expect(juniorAgain?.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_j' });
    expect(review?.model).toBe('tiny');
    expect(review?.messages.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_d', content: expect.stringContaining('Added parse.test.ts.') });
    expect(t.store.types()).toEqual([
      'turn.started',
      'tool.called',
      'delegation.started',
      'tool.called',
      'tool.completed',
      'message.delta',
      'delegation.completed',
      'tool.completed',
      'message.delta',
      'message.completed',
      'turn.completed',
    ]);
    const juniorEvents = t.store.events.filter((e) => 'threadId' in e && e.threadId === 'del_call_d').map((e) => e.type);
    expect(juniorEvents).toEqual(['delegation.started', 'tool.called', 'tool.completed', 'message.delta', 'delegation.completed']);
    expect(t.store.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(t.store.threads.get('del_call_d')?.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('offers no delegate tool to a model without the senior role, nor when no junior is served', async () => {
    const plain = setup([{ text: 'hi' }], { roles: { tiny: [], little: ['junior'] } });
    await plain.run();
    expect(plain.inference.requests[0]?.tools?.map((tool) => tool.name)).not.toContain('delegate');
    const alone = setup([{ text: 'hi' }], { roles: { tiny: ['senior'] } });
    await alone.run();
    expect(alone.inference.requests[0]?.tools?.map((tool) => tool.name)).not.toContain('delegate');
  });

  it('runs a task sent straight to the junior on the junior model', async () => {
    const t = setup([{ text: 'done locally' }], { roles, job: { model: 'little' } });
    await t.run();
    expect(t.inference.requests[0]?.model).toBe('little');
    expect(t.store.events[0]).toMatchObject({ type: 'turn.started', model: 'little' });
  });

  it('carries a delegation on after a crash instead of refusing to run it again', async () => {
    const t = setup([{ text: 'Added it.' }, { text: 'Reviewed.' }], { roles });
    t.store.history.push({ role: 'assistant', content: '', toolCalls: [call('delegate', { task: 'add it' }, 'call_d')] });
    t.store.results.set('call_d', 'started');
    t.store.threads.set('del_call_d', [{ role: 'user', content: 'add it' }]);
    await t.run();
    expect(t.inference.requests[0]).toMatchObject({ model: 'little' });
    expect(t.store.history.find((m) => m.role === 'tool')?.content).toContain('Added it.');
    expect(t.store.types().filter((type) => type === 'delegation.started')).toHaveLength(0);
  });
});

describe('TurnRunner notes', () => {
  it('stores the remember tool and "Remember:" lines as notes of the workspace and puts them in the next prompt', async () => {
    const t = setup([
      { toolCalls: [call('remember', { note: 'tests run with npm run test:unit' })] },
      { text: 'Done.\nNote for Junior: keep functions small' },
      { text: 'again' },
    ]);
    await t.run();
    expect(t.notes.notes.map((n) => [n.text, n.source])).toEqual([
      ['tests run with npm run test:unit', 'tool'],
      ['Note for Junior: keep functions small', 'answer'],
    ]);
    expect(t.store.events.filter((e) => e.type === 'note.saved')).toHaveLength(2);
    t.store.record.activeTurnId = TURN;
    t.store.history.push({ role: 'user', content: 'next' });
    await t.run();
    const system = t.inference.requests[2]?.messages[0]?.content;
    expect(system).toContain('- tests run with npm run test:unit\n- Note for Junior: keep functions small');
  });
});
