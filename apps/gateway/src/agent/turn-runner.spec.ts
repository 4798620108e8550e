import { AppError, type ChatMessage, ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import type { Authorization, FileToolsPort, PermissionPort, SandboxPort } from '../agent-core/ports';
import { agentTools } from '../agent-core/tools/agent-tools';
import { pendingToolCalls } from './turn-runner';
import { TURN, setup, call } from './test/turn-runner-world';

describe('TurnRunner', () => {
  it('runs a tool call, feeds the result back and completes with the final answer', async () => {
    const t = setup([
      { deltas: ['Let me ', 'look.'], toolCalls: [call('read_file', { path: 'src/a.ts' })] },
      { deltas: ['All ', 'good.'] },
    ]);
    await t.run();
    // Deltas that arrive within one flush window are written as one event.
    expect(t.store.types()).toEqual([
      'turn.started',
      'message.delta',
      'tool.called',
      'tool.completed',
      'message.delta',
      'message.completed',
      'turn.completed',
    ]);
    expect(t.store.events.filter((e) => e.type === 'message.delta').map((e) => e.type === 'message.delta' && e.text)).toEqual(['Let me look.', 'All good.']);
    expect(t.fileCalls).toEqual([{ workspaceId: 'ws_test00001', tool: 'read_file', arguments: { path: 'src/a.ts' } }]);
    expect(t.store.events.at(-1)).toEqual({
      type: 'turn.completed',
      turnId: TURN,
      usage: { promptTokens: 20, completionTokens: 10 },
      iterations: 2,
    });
    expect(t.store.history.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
    expect(t.store.record.activeTurnId).toBeNull();
    const second = t.inference.requests[1];
    expect(second?.messages[0]?.role).toBe('system');
    expect(second?.messages.at(-1)).toEqual({ role: 'tool', toolCallId: 'call_1', name: 'read_file', content: 'export const x = 1;\n' });
    expect(second?.tools?.map((tool) => tool.name)).toEqual([
      ...['read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'glob'],
      ...['create_directory', 'move_file', 'delete_file', 'run_command', 'execute_code', 'remember'],
    ]);
  });

  it('returns invalid tool arguments to the model as an error observation', async () => {
    const t = setup([{ toolCalls: [call('write_file', { path: 'a.txt' })] }, { text: 'retrying later' }]);
    await t.run();
    const completed = t.store.events.find((e) => e.type === 'tool.completed');
    expect(completed).toMatchObject({ isError: true, name: 'write_file' });
    expect(completed?.type === 'tool.completed' && completed.output).toContain(ErrorCode.InvalidToolArguments);
    expect(completed?.type === 'tool.completed' && completed.output).toContain('content');
    expect(t.fileCalls).toHaveLength(0);
    expect(t.store.types().at(-1)).toBe('turn.completed');
  });

  it('answers a call the inference worker flagged as malformed with its error, without running it', async () => {
    const flagged = { ...call('run_command', { command: 42 }), argumentsError: { code: 'INFERENCE.TOOL_ARGUMENTS_INVALID', message: 'command must be a string' } };
    const t = setup([{ toolCalls: [flagged] }, { text: 'fixed' }]);
    await t.run();
    expect(t.execs).toHaveLength(0);
    expect(t.store.events.find((e) => e.type === 'tool.completed')).toMatchObject({ isError: true, output: 'INFERENCE.TOOL_ARGUMENTS_INVALID: command must be a string' });
  });

  it('tells the model which tools exist when it calls an unknown one', async () => {
    const t = setup([{ toolCalls: [call('delete_everything', {})] }, { text: 'ok' }]);
    await t.run();
    const completed = t.store.events.find((e) => e.type === 'tool.completed');
    expect(completed?.type === 'tool.completed' && completed.output).toMatch(/AGENT.UNKNOWN_TOOL.*read_file/);
  });

  it("runs commands in the session's container, read-only for a session stored without a workspace mode, and formats the result", async () => {
    const t = setup([{ toolCalls: [call('run_command', { command: 'npm test' })] }, { text: 'tests pass' }]);
    await t.run();
    expect(t.execs).toEqual([
      {
        mode: 'command',
        workspaceId: 'ws_test00001',
        command: 'npm test',
        cwd: undefined,
        writable: false,
        network: 'none',
        session: { sessionId: 'ses_test0001', ownerId: 'usr_test0001' },
      },
    ]);
    const completed = t.store.events.find((e) => e.type === 'tool.completed');
    expect(completed).toMatchObject({ isError: false });
    expect(completed?.type === 'tool.completed' && completed.output).toContain('exit code: 0');
  });

  it('at the iteration cap asks the model for a summary without tools, and that summary ends the turn', async () => {
    const step = (n: number) => ({ toolCalls: [call('list_directory', { path: `d${n}` }, `c${n}`)] });
    const t = setup([step(1), step(2), { text: 'I listed two folders; the fix remains.' }], { maxIterations: 2 });
    await t.run();
    expect(t.store.types().slice(-4)).toEqual(['turn.interrupted', 'message.delta', 'message.completed', 'turn.completed']);
    expect(t.store.events.find((e) => e.type === 'turn.interrupted')).toMatchObject({ reason: 'iteration_limit' });
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.completed', iterations: 2, stopReason: 'iteration_limit' });
    expect(t.inference.requests).toHaveLength(3);
    const summary = t.inference.requests[2];
    expect(summary?.tools).toBeUndefined();
    expect(summary?.messages.at(-1)).toMatchObject({ role: 'user', content: expect.stringContaining('interrupted') });
    expect(t.store.history.at(-1)).toEqual({ role: 'assistant', content: 'I listed two folders; the fix remains.' });
    expect(t.store.record.activeTurnId).toBeNull();
  });

  it('honours the session\'s own iteration cap over the server default', async () => {
    const t = setup([{ toolCalls: [call('list_directory', {})] }, { text: 'summary' }], { maxIterations: 5 });
    t.store.record.maxIterations = 1;
    await t.run();
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.completed', stopReason: 'iteration_limit', iterations: 1 });
  });

  it('interrupts the same call with identical arguments repeated, without running the last one', async () => {
    const same = (id: string) => ({ toolCalls: [call('read_file', { path: 'a.ts' }, id)] });
    const t = setup([same('c1'), same('c2'), same('c3'), { text: 'I kept reading a.ts.' }], { maxIterations: 10 });
    await t.run();
    expect(t.fileCalls).toHaveLength(2);
    expect(t.store.events.find((e) => e.type === 'turn.interrupted')).toMatchObject({ reason: 'loop_detected' });
    expect(t.store.history.find((m) => m.role === 'tool' && m.toolCallId === 'c3')).toMatchObject({ content: expect.stringContaining('not run') });
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.completed', stopReason: 'loop_detected' });
  });

  it('interrupts when the same error comes back three times', async () => {
    const files: FileToolsPort = { call: async () => ({ isError: true, output: 'TOOLS.FILE_NOT_FOUND: no such file' }) };
    const steps = ['a', 'b', 'c'].map((p) => ({ toolCalls: [call('read_file', { path: p }, `c_${p}`)] }));
    const t = setup([...steps, { text: 'The files are missing.' }], { files, maxIterations: 10 });
    await t.run();
    expect(t.store.events.find((e) => e.type === 'turn.interrupted')).toMatchObject({ reason: 'repeated_error' });
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.completed', stopReason: 'repeated_error' });
  });

  it('stops at the token budget and summarises', async () => {
    const t = setup([{ toolCalls: [call('list_directory', {})], usage: 100 }, { text: 'summary' }], { limits: { maxTurnTokens: 50 } });
    await t.run();
    expect(t.store.events.find((e) => e.type === 'turn.interrupted')).toMatchObject({ reason: 'token_budget' });
    expect(t.fileCalls).toHaveLength(0);
    expect(t.store.history.filter((m) => m.role === 'tool')).toHaveLength(1);
  });

  it('stops a generation that runs past the time budget and summarises', async () => {
    const t = setup([{ hang: true }, { text: 'summary after timeout' }], { limits: { maxTurnMs: 50 } });
    await t.run();
    expect(await t.inference.aborted).toBe(true);
    expect(t.store.events.find((e) => e.type === 'turn.interrupted')).toMatchObject({ reason: 'time_budget' });
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.completed', stopReason: 'time_budget' });
    expect(t.store.history.some((m) => m.role === 'assistant' && m.content === 'thinking')).toBe(true);
  });

  it('gives a refused call\'s reason to the model and does not run it', async () => {
    const permissions: PermissionPort = {
      forTurn: () => ({
        authorize: async (): Promise<Authorization> => ({ allowed: false, output: 'AGENT.PERMISSION_DENIED: the user denied this call: use npm ci', waitedMs: 5 }),
        cancelOpenRequests: async () => undefined,
      }),
    };
    const t = setup([{ toolCalls: [call('run_command', { command: 'npm install' })] }, { text: 'ok' }], { permissions });
    await t.run();
    expect(t.execs).toHaveLength(0);
    expect(t.inference.requests[1]?.messages.at(-1)).toMatchObject({ role: 'tool', content: expect.stringContaining('use npm ci') });
  });

  it('cancels a running generation: turn.cancelled, the partial text kept, the session freed', async () => {
    const t = setup([{ hang: true }]);
    const running = t.run();
    await expect.poll(() => t.store.types()).toContain('message.delta');
    t.cancellation.controller.abort();
    await running;
    expect(await t.inference.aborted).toBe(true);
    expect(t.store.events.at(-1)).toEqual({ type: 'turn.cancelled', turnId: TURN, userId: 'usr_test0001' });
    expect(t.store.history.at(-1)).toEqual({ role: 'assistant', content: 'thinking' });
    expect(t.store.record.activeTurnId).toBeNull();
  });

  it('cancels a turn whose cancel came while its prompt was being built, without waiting on the generation', async () => {
    const t = setup([{ hang: true }]);
    const messages = t.store.messages.bind(t.store);
    let reads = 0;
    // The second read of the history is the prompt's: the cancel lands after the turn's own checks.
    t.store.messages = async (thread) => {
      if (++reads === 2) t.cancellation.controller.abort();
      return messages(thread);
    };
    await t.run();
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.cancelled', turnId: TURN });
  });

  it('does not run again a call whose outcome a previous run stored, nor one it left half done', async () => {
    const t = setup([{ text: 'done' }]);
    const a = call('run_command', { command: 'make' }, 'ca');
    const b = call('run_command', { command: 'make deploy' }, 'cb');
    t.store.history.push({ role: 'assistant', content: '', toolCalls: [a, b] });
    t.store.results.set('ca', { isError: false, output: 'built' });
    t.store.results.set('cb', 'started');
    await t.run();
    expect(t.execs).toHaveLength(0);
    const results = t.store.history.filter((m) => m.role === 'tool');
    expect(results.map((m) => m.content)).toEqual(['built', expect.stringContaining('may or may not have taken effect')]);
  });

  it('puts project then personal instructions in the system prompt and saves them on the session', async () => {
    const t = setup([{ text: 'hi' }]);
    await t.run();
    const system = t.inference.requests[0]?.messages[0]?.content ?? '';
    expect(system.indexOf('Use tabs.')).toBeGreaterThan(0);
    expect(system.indexOf('Be brief.')).toBeGreaterThan(system.indexOf('Use tabs.'));
    expect(t.store.instructions).toEqual({ project: { file: 'AGENTS.md', content: 'Use tabs.' }, personal: 'Be brief.' });
  });

  it('fails the turn with the transport code when inference is unreachable', async () => {
    const t = setup([new AppError(ErrorCode.Timeout, 'No reply from weft.inference.v1.generate')]);
    await t.run();
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.failed', code: ErrorCode.Timeout });
    expect(t.store.record.activeTurnId).toBeNull();
  });

  it('fails the turn when the sandbox is down and closes the pending call in the history', async () => {
    const sandbox: SandboxPort = {
      exec: async () => {
        throw new AppError(ErrorCode.SandboxUnavailable, 'no sandbox');
      },
    };
    const t = setup([{ toolCalls: [call('execute_code', { language: 'python', code: 'print(1)' })] }], { sandbox });
    await t.run();
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.failed', code: ErrorCode.SandboxUnavailable });
    expect(t.store.history.at(-1)).toMatchObject({ role: 'tool', toolCallId: 'call_1' });
    // The client that saw the call start is told how it ended, before the turn's end.
    expect(t.store.events.at(-2)).toMatchObject({ type: 'tool.completed', callId: 'call_1', isError: true, output: expect.stringContaining('may or may not have taken effect') });
  });

  it('feeds a domain error from a worker back to the model', async () => {
    const files: FileToolsPort = {
      call: async () => {
        throw new AppError(ErrorCode.WorkspaceNotFound, 'workspace is gone');
      },
    };
    const t = setup([{ toolCalls: [call('read_file', { path: 'x' })] }, { text: 'sorry' }], { files });
    await t.run();
    expect(t.store.events.find((e) => e.type === 'tool.completed')).toMatchObject({ isError: true });
    expect(t.store.types().at(-1)).toBe('turn.completed');
  });

  it('skips a turn that is no longer the active one', async () => {
    const t = setup([{ text: 'hi' }]);
    t.store.record.activeTurnId = 'turn_other0001';
    await t.run();
    expect(t.store.events).toEqual([]);
    expect(t.store.record.activeTurnId).toBe('turn_other0001');
  });
});

describe('pendingToolCalls', () => {
  it('finds calls of this turn without results, ignoring earlier turns', () => {
    const a = call('read_file', { path: 'a' }, 'c1');
    const b = call('read_file', { path: 'b' }, 'c2');
    const cut: ChatMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: '', toolCalls: [a, b] },
      { role: 'tool', toolCallId: 'c1', name: 'read_file', content: '…' },
    ];
    expect(pendingToolCalls(cut)).toEqual([b]);
    expect(pendingToolCalls([...cut, { role: 'user', content: 'next' }])).toEqual([]);
  });
});

describe('tool definitions', () => {
  it('describe arguments with JSON schemas from the contracts', () => {
    const readFile = agentTools.get('read_file')?.definition;
    expect(readFile?.parameters).toMatchObject({ type: 'object', required: ['path'] });
    expect(readFile?.parameters).not.toHaveProperty('$schema');
    const list = agentTools.get('list_directory')?.definition;
    expect(list?.parameters).not.toHaveProperty('required');
  });
});
