/** A TurnRunner over fakes of its ports, scripted step by step: what the turn-runner specs share. */
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
import type {
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
} from '../../agent-core/ports';
import type { Chain } from '../../chains/chain-schema';
import type { TurnProgressReport } from '../../agent-core/turn-context';
import { agentTools } from '../../agent-core/tools/agent-tools';
import { type TurnLimits, TurnRunner } from '../turn-runner';

export const SESSION = 'ses_test0001';
export const TURN = 'turn_test0001';

export class FakeStore implements TurnStore {
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

export const allowAll: PermissionPort = { forTurn: () => ({ authorize: async () => ({ allowed: true, waitedMs: 0 }), cancelOpenRequests: async () => undefined }) };

export class FakeCancellation implements CancellationPort {
  readonly controller = new AbortController();
  async watch() {
    return { signal: this.controller.signal, dispose: () => undefined };
  }
  async cancelledBy() {
    return this.controller.signal.aborted ? 'usr_test0001' : undefined;
  }
}

export type Step = { deltas?: string[]; text?: string; toolCalls?: ToolCall[]; usage?: number; cached?: number; hang?: boolean } | Error;

export class ScriptedInference implements InferencePort {
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

export interface SetupOptions {
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

export class FakeNotes implements NotesPort {
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

export function setup(steps: Step[], options: SetupOptions = {}) {
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

export const call = (name: string, args: Record<string, unknown>, id = 'call_1'): ToolCall => ({ id, name, arguments: args });
