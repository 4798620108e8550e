import { ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import type { FileToolsPort } from '../agent-core/ports';
import type { Chain } from '../chains/chain-schema';
import { SESSION, TURN, setup, call } from './test/turn-runner-world';

describe('TurnRunner planning mode', () => {
  it('writes a plan, lists subtasks, runs each in its own conversation with what came before, then sums up', async () => {
    const t = setup(
      [
        { text: 'Plan: add a parser, then its tests.' },
        { text: '{"subtasks": [{"title": "Parser", "description": "write src/parse.ts"}, {"title": "Tests", "description": "test it"}]}' },
        { toolCalls: [call('write_file', { path: 'src/parse.ts', content: 'x' }, 'call_p')] },
        { text: 'Wrote the parser.' },
        { text: 'Tests written.' },
        { text: 'Both subtasks are done.' },
      ],
      { job: { mode: 'plan' } },
    );
    await t.run();
    expect(t.store.types().filter((type) => !type.startsWith('message.') && !type.startsWith('tool.'))).toEqual([
      'turn.started',
      'plan.created',
      'subtask.started',
      'subtask.completed',
      'subtask.started',
      'subtask.completed',
      'turn.completed',
    ]);
    expect(t.store.events.find((e) => e.type === 'plan.created')).toMatchObject({
      plan: 'Plan: add a parser, then its tests.',
      subtasks: [{ title: 'Parser' }, { title: 'Tests' }],
    });
    const second = t.inference.requests[4];
    expect(second?.sessionId).toBe(`${SESSION}:sub_${TURN}_2`);
    const brief = second?.messages[1]?.content ?? '';
    expect(brief).toContain('Subtask 2 of 2: Tests');
    expect(brief).toContain('Plan: add a parser');
    expect(brief).toContain('1. Parser (completed): Wrote the parser.');
    expect(brief).toContain('- src/parse.ts');
    expect(t.inference.requests[1]?.jsonSchema).toBeDefined();
    expect(t.store.events.at(-2)).toMatchObject({ type: 'message.completed', content: 'Both subtasks are done.' });
    expect(t.progress.map((p) => p.phase)).toEqual(['planning', 'subtask', 'subtask', 'summary']);
  });

  it("streams the plan to the reader but not the subtasks' JSON, which only the plan card shows", async () => {
    const json = '{"subtasks": [{"title": "Only", "description": "do it"}]}';
    const t = setup([{ text: 'Plan: do it.' }, { text: json }, { text: 'Did it.' }, { text: 'Summary.' }], { job: { mode: 'plan' } });
    await t.run();
    const streamed = t.store.events.flatMap((e) => (e.type === 'message.delta' || e.type === 'message.resync' ? [e.text] : []));
    expect(streamed.join('')).toContain('Plan: do it.');
    expect(streamed.join('')).not.toContain('subtasks');
    expect(t.store.events.find((e) => e.type === 'plan.created')).toMatchObject({ subtasks: [{ title: 'Only' }] });
  });

  it('stops a subtask whose same error comes back three times and goes on with the next', async () => {
    const failing = { isError: true, output: 'TOOLS.FILE_NOT_FOUND: No such file: a.ts' };
    const files: FileToolsPort = { call: async () => failing };
    const read = (id: string, path: string) => ({ toolCalls: [call('read_file', { path }, id)] });
    const t = setup(
      [
        { text: 'plan' },
        { text: '1. First: read\n2. Second: finish' },
        read('c1', 'a.ts'),
        read('c2', 'b.ts'),
        read('c3', 'c.ts'),
        { text: 'Could not find the files.' },
        { text: 'Second done.' },
        { text: 'Summary.' },
      ],
      { job: { mode: 'plan' }, files },
    );
    await t.run();
    const completed = t.store.events.filter((e) => e.type === 'subtask.completed');
    expect(completed.map((e) => e.type === 'subtask.completed' && [e.title, e.status])).toEqual([
      ['First', 'stopped'],
      ['Second', 'completed'],
    ]);
    expect(t.store.types().at(-1)).toBe('turn.completed');
  });

  it('plans a second planning turn of the same session afresh', async () => {
    const turn = (plan: string) => [{ text: plan }, { text: '1. Only: do it' }, { text: 'did it' }, { text: `summary of ${plan}` }];
    const t = setup([...turn('first plan'), ...turn('second plan')], { job: { mode: 'plan' } });
    await t.run();
    t.store.record.activeTurnId = TURN;
    t.store.history.push({ role: 'user', content: 'and now the next thing' });
    t.store.saved.clear();
    await t.run();
    const plans = t.store.events.filter((e) => e.type === 'plan.created').map((e) => e.type === 'plan.created' && e.plan);
    expect(plans).toEqual(['first plan', 'second plan']);
    expect(t.store.events.at(-2)).toMatchObject({ type: 'message.completed', content: 'summary of second plan' });
  });

  it('resumes a planning turn after the last finished subtask without planning again', async () => {
    const t = setup([{ text: 'Second done.' }, { text: 'Summary.' }], { job: { mode: 'plan' } });
    t.store.saved.set(TURN, {
      kind: 'plan',
      plan: 'p',
      subtasks: [
        { title: 'One', description: 'a' },
        { title: 'Two', description: 'b' },
      ],
      finished: [{ status: 'completed', summary: 'One done.', files: [] }],
    });
    await t.run();
    expect(t.inference.requests).toHaveLength(2);
    expect(t.inference.requests[0]?.messages[1]?.content).toContain('Subtask 2 of 2: Two');
    expect(t.store.types()).not.toContain('plan.created');
  });
});

describe('TurnRunner chains', () => {
  const chain: Chain = {
    inputs: { issue: {} },
    steps: [
      { name: 'find', prompt: 'Find where {{ inputs.issue }} happens' },
      { name: 'test', tool: 'run_command', arguments: { command: 'npm test -- {{ steps.find.output }}' } },
      { name: 'fix', prompt: 'Fix it; the tests said: {{ steps.test.output }}' },
    ],
  };

  it('runs prompt and tool steps in order, each fed the outputs of the earlier ones, and logs each step', async () => {
    const t = setup([{ text: 'parser.ts' }, { text: 'Fixed.' }], {
      chains: { 'fix-bug': chain },
      job: { mode: 'chain', chain: { name: 'fix-bug', inputs: { issue: 'the crash' } } },
    });
    await t.run();
    expect(t.inference.requests[0]?.messages.at(-1)).toEqual({ role: 'user', content: 'Find where the crash happens' });
    expect(t.execs).toEqual([expect.objectContaining({ command: 'npm test -- parser.ts' })]);
    expect(t.inference.requests[1]?.messages.at(-1)?.content).toContain('Fix it; the tests said: exit code: 0');
    const steps = t.store.events.filter((e) => e.type === 'chain.step.completed');
    expect(steps.map((e) => e.type === 'chain.step.completed' && [e.step, e.isError])).toEqual([
      ['find', false],
      ['test', false],
      ['fix', false],
    ]);
    expect(t.store.events.at(-2)).toMatchObject({ type: 'message.completed', content: 'Fixed.' });
  });

  it('fails the turn with the reason when the chain is gone', async () => {
    const t = setup([], { job: { mode: 'chain', chain: { name: 'missing', inputs: {} } } });
    await t.run();
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.failed', code: ErrorCode.NotFound });
  });
});
