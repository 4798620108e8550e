import { AppError, ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { parseChain, render, renderArguments, resolveInputs } from './chain-schema';

const tools = new Set(['run_command', 'read_file']);

const problemsOf = (attempt: () => unknown): string[] => {
  try {
    attempt();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe(ErrorCode.ChainInvalid);
    return (error as AppError).details?.problems as string[];
  }
  throw new Error('expected the chain to be refused');
};

describe('chain files', () => {
  it('parses prompt and tool steps, with inputs as a list or a map with defaults', () => {
    const chain = parseChain(
      'review',
      [
        'inputs:',
        '  branch: { description: the branch to review, default: main }',
        'steps:',
        '  - name: diff',
        '    tool: run_command',
        '    arguments: { command: "git diff {{ inputs.branch }}" }',
        '  - name: review',
        '    prompt: "Review this diff: {{ steps.diff.output }}"',
      ].join('\n'),
      tools,
    );
    expect(chain.inputs).toEqual({ branch: { description: 'the branch to review', default: 'main' } });
    expect(chain.steps.map((s) => s.name)).toEqual(['diff', 'review']);
    expect(parseChain('x', 'inputs: [a, b]\nsteps:\n  - { name: s, prompt: "{{inputs.a}}" }', tools).inputs).toEqual({ a: {}, b: {} });
  });

  it('lists every problem at once: bad YAML, unknown tools, duplicate names, and templates naming nothing', () => {
    expect(problemsOf(() => parseChain('bad', 'steps: [', tools))[0]).toMatch(/^not valid YAML/);
    expect(problemsOf(() => parseChain('empty', 'steps: []', tools))).toEqual(['steps: a chain needs at least one step']);
    const problems = problemsOf(() =>
      parseChain(
        'wrong',
        [
          'inputs: [issue]',
          'steps:',
          '  - { name: a, tool: curl_everything }',
          '  - { name: a, prompt: "{{ inputs.nope }} {{ steps.later.output }} {{ env.HOME }}" }',
          '  - { name: later, prompt: x }',
        ].join('\n'),
        tools,
      ),
    );
    expect(problems).toEqual([
      'steps.0 (a): unknown tool "curl_everything"; known: run_command, read_file',
      'steps.1 (a): the step name "a" is used twice',
      'steps.1 (a): {{ inputs.nope }} names an undeclared input',
      'steps.1 (a): {{ steps.later.output }} names no earlier step',
      'steps.1 (a): {{ env.HOME }} is neither inputs.<name> nor steps.<name>.output',
    ]);
  });

  it('fills defaults and refuses missing and unknown inputs by name', () => {
    const chain = parseChain('c', 'inputs:\n  issue: { description: what broke }\n  branch: { default: main }\nsteps:\n  - { name: s, prompt: x }', tools);
    expect(resolveInputs('c', chain, { issue: 'crash' })).toEqual({ issue: 'crash', branch: 'main' });
    expect(problemsOf(() => resolveInputs('c', chain, { typo: 'x' }))).toEqual(['unknown input "typo"', 'missing input "issue" (what broke)']);
  });

  it('renders templates in prompts and in every string of tool arguments', () => {
    const outputs = new Map([['find', 'src/a.ts']]);
    expect(render('Fix {{ inputs.issue }} in {{steps.find.output}}', { issue: 'the crash' }, outputs)).toBe('Fix the crash in src/a.ts');
    expect(renderArguments({ command: 'cat {{ steps.find.output }}', n: 3, list: ['{{ inputs.issue }}'] }, { issue: 'x' }, outputs)).toEqual({
      command: 'cat src/a.ts',
      n: 3,
      list: ['x'],
    });
  });
});
