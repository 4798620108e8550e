import {
  AppError,
  type ChatMessage,
  ErrorCode,
  type ExecRequest,
  type RunTurnJob,
  type GenerateChunk,
  type GenerateRequest,
  type GenerateResult,
  type SessionEvent,
  type ToolCall,
  type ToolCallRequest,
} from '@weft/contracts';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type {
  Authorization,
  CancellationPort,
  ContextState,
  FileToolsPort,
  InferencePort,
  InstructionsSummary,
  Note,
  NotesPort,
  PermissionPort,
  SandboxPort,
  ToolCallState,
  ThreadRef,
  ToolOutcome,
  TurnProgress,
  TurnSession,
  TurnStore,
} from '../agent-core/ports';
import type { Chain } from '../chains/chain-schema';
import type { TurnProgressReport } from '../agent-core/turn-context';
import { agentTools } from '../agent-core/tools/agent-tools';
import { type TurnLimits, TurnRunner, pendingToolCalls } from './turn-runner';

const SESSION = 'ses_test0001';
const TURN = 'turn_test0001';

class FakeStore implements TurnStore {
  events: SessionEvent[] = [];
  history: ChatMessage[] = [{ role: 'user', content: 'fix the bug' }];
  /** Other conversations (delegations, subtasks), by thread id. */
  threads = new Map<string, ChatMessage[]>();
  record: TurnSession = { ownerId: 'usr_test0001', workspaceId: 'ws_test00001', model: 'tiny', activeTurnId: TURN, maxIterations: null };
  results = new Map<string, ToolOutcome | 'started'>();
  instructions?: InstructionsSummary;
  context?: ContextState;
  saved = new Map<string, TurnProgress>();
  async session() {
    return this.record;
  }
  private thread(ref: ThreadRef): ChatMessage[] {
    if (!ref.threadId) return this.history;
    const thread = this.threads.get(ref.threadId) ?? [];
    this.threads.set(ref.threadId, thread);
    return thread;
  }
  private key(ref: ThreadRef, callId: string) {
    return ref.threadId ? `${ref.threadId}/${callId}` : callId;
  }
  async messages(ref: ThreadRef) {
    return [...this.thread(ref)];
  }
  async appendMessage(ref: ThreadRef, message: ChatMessage) {
    this.thread(ref).push(message);
  }
  async appendEvent(_s: string, event: SessionEvent) {
    this.events.push(event);
  }
  async endTurn(_s: string, turnId: string) {
    if (this.record.activeTurnId === turnId) this.record.activeTurnId = null;
  }
  async toolCallState(ref: ThreadRef, callId: string): Promise<ToolCallState> {
    const stored = this.results.get(this.key(ref, callId));
    if (stored === undefined) return { kind: 'new' };
    return stored === 'started' ? { kind: 'unknown' } : { kind: 'done', outcome: stored };
  }
  private readonly announced = new Set<string>();
  async wasAnnounced(ref: ThreadRef, callId: string) {
    return this.announced.has(this.key(ref, callId));
  }
  async markAnnounced(ref: ThreadRef, callId: string) {
    this.announced.add(this.key(ref, callId));
  }
  async claimToolCall(ref: ThreadRef, callId: string) {
    if (this.results.has(this.key(ref, callId))) return false;
    this.results.set(this.key(ref, callId), 'started');
    return true;
  }
  async recordToolResult(ref: ThreadRef, turnId: string, call: ToolCall, outcome: ToolOutcome) {
    this.results.set(this.key(ref, call.id), outcome);
    this.thread(ref).push({ role: 'tool', toolCallId: call.id, name: call.name, content: outcome.output });
    this.events.push({ type: 'tool.completed', turnId, callId: call.id, name: call.name, ...outcome, ...(ref.threadId ? { threadId: ref.threadId } : {}) });
  }
  async saveInstructions(_s: string, instructions: InstructionsSummary) {
    this.instructions = instructions;
  }
  async contextState() {
    return this.context;
  }
  async saveContextState(_ref: ThreadRef, state: ContextState) {
    this.context = state;
  }
  async progress(_s: string, turnId: string) {
    return this.saved.get(turnId);
  }
  async saveProgress(_s: string, turnId: string, progress: TurnProgress) {
    this.saved.set(turnId, structuredClone(progress));
  }
  types() {
    return this.events.map((e) => e.type);
  }
}

const allowAll: PermissionPort = { forTurn: () => ({ authorize: async () => ({ allowed: true, waitedMs: 0 }), cancelOpenRequests: async () => undefined }) };

class FakeCancellation implements CancellationPort {
  readonly controller = new AbortController();
  async watch() {
    return { signal: this.controller.signal, dispose: () => undefined };
  }
  async cancelledBy() {
    return this.controller.signal.aborted ? 'usr_test0001' : undefined;
  }
}

type Step = { deltas?: string[]; text?: string; toolCalls?: ToolCall[]; usage?: number; cached?: number; hang?: boolean } | Error;

class ScriptedInference implements InferencePort {
  requests: GenerateRequest[] = [];
  aborted?: Promise<boolean>;
  constructor(private readonly steps: Step[]) {}
  async *generate(request: GenerateRequest, signal?: AbortSignal): AsyncIterable<GenerateChunk> {
    this.requests.push(request);
    const step = this.steps.shift() ?? { text: 'done' };
    if (step instanceof Error) throw step;
    if (step.hang) {
      yield { type: 'delta', text: 'thinking' };
      this.aborted = new Promise((resolve) => signal?.addEventListener('abort', () => resolve(true)));
      await new Promise(() => undefined);
    }
    for (const text of step.deltas ?? [step.text ?? '']) yield { type: 'delta', text };
    const result: GenerateResult = {
      text: step.text ?? (step.deltas ?? []).join(''),
      toolCalls: step.toolCalls ?? [],
      finishReason: step.toolCalls ? 'tool_calls' : 'stop',
      usage: {
        promptTokens: step.usage ?? 10,
        completionTokens: 5,
        ...(step.cached === undefined ? {} : { cachedTokens: step.cached, evaluatedTokens: (step.usage ?? 10) - step.cached }),
      },
      timings: { totalMs: 1 },
    };
    yield { type: 'done', result };
  }
}

interface SetupOptions {
  files?: FileToolsPort;
  sandbox?: SandboxPort;
  maxIterations?: number;
  permissions?: PermissionPort;
  limits?: Partial<TurnLimits>;
  contextSize?: number;
  /** Roles of the models served; `tiny` is the session's model. */
  roles?: Record<string, string[]>;
  chains?: Record<string, Chain>;
  job?: Partial<RunTurnJob>;
}

class FakeNotes implements NotesPort {
  notes: Note[] = [];
  async list() {
    return [...this.notes];
  }
  async add(_w: string, note: Pick<Note, 'text' | 'source' | 'author'>) {
    const stored = { id: `note_${this.notes.length + 1}`, ...note, createdAt: new Date().toISOString() };
    this.notes.push(stored);
    return stored;
  }
}

function setup(steps: Step[], options: SetupOptions = {}) {
  const store = new FakeStore();
  const notes = new FakeNotes();
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
  const cancellation = new FakeCancellation();
  const instructions = {
    load: async (): Promise<InstructionsSummary> => ({ project: { file: 'AGENTS.md', content: 'Use tabs.' }, personal: 'Be brief.' }),
  };
  const runner = new TurnRunner(
    {
      store,
      inference,
      files,
      sandbox,
      tools: agentTools,
      logger,
      permissions: options.permissions ?? allowAll,
      instructions,
      cancellation,
      notes,
      chains: {
        load: async (_w, name) => {
          const chain = options.chains?.[name];
          if (!chain) throw new AppError(ErrorCode.NotFound, `Chain "${name}" not found`);
          return chain;
        },
      },
      models:
        options.contextSize === undefined && options.roles === undefined
          ? undefined
          : {
              contextSize: async () => options.contextSize,
              roles: async (model) => options.roles?.[model] ?? [],
              withRole: async (role) => Object.entries(options.roles ?? {}).find(([, roles]) => roles.includes(role))?.[0],
            },
    },
    { maxIterations: options.maxIterations ?? 5, ...options.limits },
  );
  const progress: TurnProgressReport[] = [];
  const run = () =>
    runner.run({ sessionId: SESSION, turnId: TURN, ...options.job }, async (report) => {
      progress.push(report);
    });
  return { store, inference, runner, fileCalls, execs, cancellation, notes, progress, run };
}

const call = (name: string, args: Record<string, unknown>, id = 'call_1'): ToolCall => ({ id, name, arguments: args });

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

describe('TurnRunner usage and context', () => {
  it('sums cached and evaluated prompt tokens into turn.completed', async () => {
    const t = setup([
      { toolCalls: [{ id: 'c1', name: 'read_file', arguments: { path: 'a.ts' } }], usage: 100, cached: 0 },
      { text: 'Fixed.', usage: 120, cached: 100 },
    ]);
    await t.run();
    expect(t.store.events.at(-1)).toMatchObject({
      type: 'turn.completed',
      usage: { promptTokens: 220, completionTokens: 10, cachedTokens: 100, evaluatedTokens: 120 },
    });
  });

  it('leaves the cache counts out when the worker does not report them', async () => {
    const t = setup([{ text: 'Fixed.' }]);
    await t.run();
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.completed', usage: { promptTokens: 10, completionTokens: 5 } });
    expect(t.store.events.at(-1)).not.toHaveProperty('usage.cachedTokens');
  });

  it('replaces older turns with a summary when the history outgrows the context, keeping the stored messages', async () => {
    const t = setup([{ text: 'SUMMARY: the user pasted a long log; I explained it.' }, { text: 'Fixed.' }], {
      contextSize: 6000,
      limits: { maxReplyTokens: 1000 },
    });
    const older: ChatMessage[] = [
      { role: 'user', content: `explain this log ${'x'.repeat(8000)}` },
      { role: 'assistant', content: 'It is a timeout.' },
    ];
    t.store.history = [...older, { role: 'user', content: `fix the bug ${'y'.repeat(4000)}` }];
    await t.run();

    const compacted = t.store.events.find((e) => e.type === 'context.compacted');
    expect(compacted).toMatchObject({ contextSize: 6000, summarisedMessages: 2, keptMessages: 1 });
    if (compacted?.type !== 'context.compacted') throw new Error('no compaction');
    expect(compacted.tokensBefore).toBeGreaterThan(5000);
    expect(compacted.tokensAfter).toBeLessThanOrEqual(5000);

    const [summary, answer] = t.inference.requests;
    expect(summary?.tools).toBeUndefined();
    expect(summary?.messages.at(-1)?.content).toContain('Summarise the conversation so far');
    expect(summary?.messages.at(-1)?.content).toContain('It is a timeout.');
    expect(answer?.messages.map((m) => m.role)).toEqual(['system', 'user']);
    expect(answer?.messages[0]?.content).toContain('SUMMARY: the user pasted a long log');
    expect(t.store.history.slice(0, 2)).toEqual(older);
    expect(t.store.context).toMatchObject({ summarisedMessages: 2, summary: 'SUMMARY: the user pasted a long log; I explained it.' });
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.completed', usage: { promptTokens: 20 } });
  });

  it('does not compact a history that fits', async () => {
    const t = setup([{ text: 'Fixed.' }], { contextSize: 100_000 });
    await t.run();
    expect(t.store.types()).not.toContain('context.compacted');
    expect(t.inference.requests).toHaveLength(1);
    expect(t.store.context).toMatchObject({ measured: { messages: 1, promptTokens: 10 } });
  });

  it("aborts a running command's signal when the turn is cancelled, and ends the turn cancelled", async () => {
    let signal: AbortSignal | undefined;
    const sandbox: SandboxPort = {
      exec: (_request, options) =>
        new Promise((_resolve, reject) => {
          signal = options?.signal;
          signal?.addEventListener('abort', () => reject(new AppError(ErrorCode.SandboxCancelled, 'killed')));
        }),
    };
    const t = setup([{ toolCalls: [call('run_command', { command: 'npm test' })] }], { sandbox });
    const running = t.run();
    await expect.poll(() => signal).toBeDefined();
    t.cancellation.controller.abort();
    await running;
    expect(signal?.aborted).toBe(true);
    expect(t.store.events.at(-1)).toMatchObject({ type: 'turn.cancelled' });
  });

  it("logs a long run's output as tool.output events, in order, before its tool.completed", async () => {
    const sandbox: SandboxPort = {
      exec: async (_request, options) => {
        options?.onOutput?.('stdout', 'installing\n');
        options?.onOutput?.('stderr', 'warn: old\n');
        return { exitCode: 0, stdout: 'installing\n', stderr: 'warn: old\n', stdoutTruncated: false, stderrTruncated: false, timedOut: false, oomKilled: false, durationMs: 5 };
      },
    };
    const t = setup([{ toolCalls: [call('run_command', { command: 'npm ci' }, 'call_9')] }, { text: 'installed' }], { sandbox });
    await t.run();
    const relayed = t.store.events.filter((e) => e.type === 'tool.output' || e.type === 'tool.completed');
    expect(relayed).toEqual([
      { type: 'tool.output', turnId: TURN, callId: 'call_9', stream: 'stdout', text: 'installing\n' },
      { type: 'tool.output', turnId: TURN, callId: 'call_9', stream: 'stderr', text: 'warn: old\n' },
      expect.objectContaining({ type: 'tool.completed', callId: 'call_9', isError: false }),
    ]);
  });
});

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
