import {
  AppError,
  type ChatMessage,
  ErrorCode,
  type ExecRequest,
  type GenerateChunk,
  type GenerateRequest,
  type GenerateResult,
  type SessionEvent,
  type ToolCall,
  type ToolCallRequest,
} from '@weft/contracts';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { FileToolsPort, InferencePort, SandboxPort, TurnSession, TurnStore } from './ports';
import { agentTools } from './tools/agent-tools';
import { TurnRunner, pendingToolCalls } from './turn-runner';

const SESSION = 'ses_test0001';
const TURN = 'turn_test0001';

class FakeStore implements TurnStore {
  events: SessionEvent[] = [];
  history: ChatMessage[] = [{ role: 'user', content: 'fix the bug' }];
  record: TurnSession = { workspaceId: 'ws_test00001', model: 'tiny', activeTurnId: TURN };
  async session() {
    return this.record;
  }
  async messages() {
    return [...this.history];
  }
  async appendMessage(_s: string, message: ChatMessage) {
    this.history.push(message);
  }
  async appendEvent(_s: string, event: SessionEvent) {
    this.events.push(event);
  }
  async endTurn(_s: string, turnId: string) {
    if (this.record.activeTurnId === turnId) this.record.activeTurnId = null;
  }
  types() {
    return this.events.map((e) => e.type);
  }
}

type Step = { deltas?: string[]; text?: string; toolCalls?: ToolCall[] } | Error;

class ScriptedInference implements InferencePort {
  requests: GenerateRequest[] = [];
  constructor(private readonly steps: Step[]) {}
  async *generate(request: GenerateRequest): AsyncIterable<GenerateChunk> {
    this.requests.push(request);
    const step = this.steps.shift() ?? { text: 'done' };
    if (step instanceof Error) throw step;
    for (const text of step.deltas ?? [step.text ?? '']) yield { type: 'delta', text };
    const result: GenerateResult = {
      text: step.text ?? (step.deltas ?? []).join(''),
      toolCalls: step.toolCalls ?? [],
      finishReason: step.toolCalls ? 'tool_calls' : 'stop',
      usage: { promptTokens: 10, completionTokens: 5 },
      timings: { totalMs: 1 },
    };
    yield { type: 'done', result };
  }
}

function setup(steps: Step[], options: { files?: FileToolsPort; sandbox?: SandboxPort; maxIterations?: number } = {}) {
  const store = new FakeStore();
  const inference = new ScriptedInference(steps);
  const fileCalls: ToolCallRequest[] = [];
  const execs: ExecRequest[] = [];
  const files: FileToolsPort = options.files ?? {
    call: async (request) => {
      fileCalls.push(request);
      return { isError: false, output: 'export const x = 1;\n' };
    },
  };
  const sandbox: SandboxPort = options.sandbox ?? {
    exec: async (request) => {
      execs.push(request);
      return {
        exitCode: 0,
        stdout: 'ok\n',
        stderr: '',
        stdoutTruncated: false,
        stderrTruncated: false,
        timedOut: false,
        oomKilled: false,
        durationMs: 5,
      };
    },
  };
  const logger = pino({ level: 'silent' });
  const runner = new TurnRunner({ store, inference, files, sandbox, tools: agentTools, logger }, { maxIterations: options.maxIterations ?? 5 });
  return { store, inference, runner, fileCalls, execs, run: () => runner.run({ sessionId: SESSION, turnId: TURN }) };
}

const call = (name: string, args: Record<string, unknown>, id = 'call_1'): ToolCall => ({ id, name, arguments: args });

describe('TurnRunner', () => {
  it('runs a tool call, feeds the result back and completes with the final answer', async () => {
    const t = setup([
      { deltas: ['Let me ', 'look.'], toolCalls: [call('read_file', { path: 'src/a.ts' })] },
      { deltas: ['All ', 'good.'] },
    ]);
    await t.run();
    expect(t.store.types()).toEqual([
      'turn.started',
      'message.delta',
      'message.delta',
      'tool.called',
      'tool.completed',
      'message.delta',
      'message.delta',
      'message.completed',
      'turn.completed',
    ]);
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
    expect(second?.tools?.map((tool) => tool.name)).toEqual(['read_file', 'write_file', 'list_directory', 'run_command', 'execute_code']);
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

  it('tells the model which tools exist when it calls an unknown one', async () => {
    const t = setup([{ toolCalls: [call('delete_everything', {})] }, { text: 'ok' }]);
    await t.run();
    const completed = t.store.events.find((e) => e.type === 'tool.completed');
    expect(completed?.type === 'tool.completed' && completed.output).toMatch(/AGENT.UNKNOWN_TOOL.*read_file/);
  });

  it('runs commands in the sandbox read-only and formats the result', async () => {
    const t = setup([{ toolCalls: [call('run_command', { command: 'npm test' })] }, { text: 'tests pass' }]);
    await t.run();
    expect(t.execs).toEqual([{ mode: 'command', workspaceId: 'ws_test00001', command: 'npm test', cwd: undefined, writable: false }]);
    const completed = t.store.events.find((e) => e.type === 'tool.completed');
    expect(completed).toMatchObject({ isError: false });
    expect(completed?.type === 'tool.completed' && completed.output).toContain('exit code: 0');
  });

  it('fails the turn at the iteration limit and frees the session', async () => {
    const loop = () => ({ toolCalls: [call('list_directory', {})] });
    const t = setup([loop(), loop(), loop()], { maxIterations: 2 });
    await t.run();
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.failed', code: ErrorCode.IterationLimit });
    expect(t.inference.requests).toHaveLength(2);
    expect(t.store.record.activeTurnId).toBeNull();
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
