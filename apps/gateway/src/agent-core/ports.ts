import type {
  ChatMessage,
  ExecRequest,
  ExecResult,
  GenerateChunk,
  GenerateRequest,
  SandboxNetwork,
  SessionEvent,
  Subtask,
  ToolCall,
  ToolCallRequest,
  ToolCallResult,
} from '@weft/contracts';

/** What the turn runner needs from the world; NATS and Redis adapters in production, fakes in tests. */
export interface InferencePort {
  /**
   * Aborting `signal` ends the stream early (and tells the worker to stop, where it can).
   * `onResumed` is told, before the next chunk, that the generation lost its worker mid-stream
   * and goes on on another from what already streamed.
   */
  generate(request: GenerateRequest, signal?: AbortSignal, onResumed?: (resumed: { streamedChars: number; pausedMs: number }) => void): AsyncIterable<GenerateChunk>;
}

export interface FileToolsPort {
  call(request: ToolCallRequest): Promise<ToolCallResult>;
}

/** What a caller may add to a run. */
export interface ExecOptions {
  /** Aborting kills the run (a long run's container; a short run's process). */
  signal?: AbortSignal;
  /** A long run's output as it comes, in order, in bounded chunks (short runs send none). */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** For the sandbox's log lines. */
  sessionId?: string;
  turnId?: string;
}

/** The per-user workspace quota (WORKSPACE_QUOTA_BYTES) for what tools and commands write. */
export interface WorkspaceQuotaPort {
  assertCanWrite(ownerId: string): Promise<void>;
  measure(ownerId: string): Promise<{ usedBytes: number; quotaBytes: number; over: boolean }>;
}

export interface SandboxPort {
  exec(request: ExecRequest, options?: ExecOptions): Promise<ExecResult>;
}

export interface TurnSession {
  ownerId: string;
  workspaceId: string;
  model: string;
  activeTurnId: string | null;
  /** The session's own iteration cap, over the server default. */
  maxIterations: number | null;
  /** The session's sandbox network policy; `none` when absent. */
  sandboxNetwork?: SandboxNetwork;
  /** Whether its commands may write to the workspace; read-only when absent. */
  sandboxWorkspace?: 'read-only' | 'read-write';
  /** The catalogue image its commands run in. */
  sandboxImage?: string | null;
}

/** What a tool call came to; stored by call id so a resumed run never runs a call twice. */
export interface ToolOutcome {
  isError: boolean;
  output: string;
}

/** A call's state: never started, finished (its outcome), or started by a run that died while it ran. */
export type ToolCallState = { kind: 'new' } | { kind: 'done'; outcome: ToolOutcome } | { kind: 'unknown' };

export interface InstructionsSummary {
  project: { file: string; content: string } | null;
  personal: string | null;
}

/**
 * What the model sees of a long session: the summary that stands in for the oldest stored
 * messages (which stay stored as they were), and the last prompt size the worker counted.
 */
export interface ContextState {
  /** Stored messages, from the first, that `summary` replaces in the prompt. */
  summarisedMessages: number;
  summary: string | null;
  /** Prompt tokens of the last generation, and how many stored messages that prompt held. */
  measured?: { messages: number; promptTokens: number };
}

/** What the runtime knows of the models the workers announce. */
export interface ModelContextPort {
  /** The context length; undefined when unknown. */
  contextSize(model: string): Promise<number | undefined>;
  /** The roles the model's config gives it (`senior`, `junior`); none when unknown. */
  roles(model: string): Promise<string[]>;
  /** A model served with this role, if any. */
  withRole(role: string): Promise<string | undefined>;
}

/**
 * One conversation of a session: its own (no `threadId`), or one the runtime opened inside a turn
 * (a delegated junior's loop, a planning subtask), with its own messages and tool outcomes.
 */
export interface ThreadRef {
  sessionId: string;
  threadId?: string;
}

/** How far a planning turn got: what a resumed run needs to carry on where the last one stopped. */
export interface PlanProgress {
  kind: 'plan';
  plan: string;
  subtasks: Subtask[];
  /** Summaries of the finished subtasks, in order. */
  finished: Array<{ status: 'completed' | 'stopped'; summary: string; files: string[] }>;
}

/** How far a chain turn got: each finished step's output, in order. */
export interface ChainProgress {
  kind: 'chain';
  outputs: Array<{ step: string; output: string; isError: boolean }>;
}

export type TurnProgress = PlanProgress | ChainProgress;

export interface TurnStore {
  session(sessionId: string): Promise<TurnSession | undefined>;
  messages(thread: ThreadRef): Promise<ChatMessage[]>;
  appendMessage(thread: ThreadRef, message: ChatMessage): Promise<void>;
  appendEvent(sessionId: string, event: SessionEvent): Promise<void>;
  endTurn(sessionId: string, turnId: string): Promise<void>;
  toolCallState(thread: ThreadRef, callId: string): Promise<ToolCallState>;
  /** Whether `tool.called` was logged for the call already (a resumed run must not log it twice). */
  wasAnnounced(thread: ThreadRef, callId: string): Promise<boolean>;
  markAnnounced(thread: ThreadRef, callId: string): Promise<void>;
  /** Marks a call as started; false when some run already did. */
  claimToolCall(thread: ThreadRef, callId: string): Promise<boolean>;
  /** The outcome, the tool message and `tool.completed`, written together. */
  recordToolResult(thread: ThreadRef, turnId: string, call: ToolCall, outcome: ToolOutcome): Promise<void>;
  saveInstructions(sessionId: string, instructions: InstructionsSummary): Promise<void>;
  contextState(thread: ThreadRef): Promise<ContextState | undefined>;
  saveContextState(thread: ThreadRef, state: ContextState): Promise<void>;
  progress(sessionId: string, turnId: string): Promise<TurnProgress | undefined>;
  saveProgress(sessionId: string, turnId: string, progress: TurnProgress): Promise<void>;
}

/** A shared note of a workspace, read by every model that works in it. */
export interface Note {
  id: string;
  text: string;
  source: 'tool' | 'answer' | 'user';
  /** The model that wrote it, or the user's id for notes added through the API. */
  author: string;
  createdAt: string;
}

export interface NotesPort {
  list(workspaceId: string): Promise<Note[]>;
  add(workspaceId: string, note: Pick<Note, 'text' | 'source' | 'author'>): Promise<Note>;
}

export interface PermissionContext {
  sessionId: string;
  turnId: string;
  ownerId: string;
  workspaceId: string;
  signal: AbortSignal;
  emit(event: SessionEvent): Promise<void>;
  /**
   * How long to wait for a person's answer before parking the turn (throwing `TurnParked`) so it
   * holds no slot; without it the run waits for the answer or the deadline.
   */
  parkAfterMs?: number;
}

/** `waitedMs`: time spent waiting for a person, which the turn's wall-time budget does not count. */
export type Authorization = { allowed: true; waitedMs: number } | { allowed: false; output: string; waitedMs: number };

export interface TurnPermissions {
  authorize(call: ToolCall): Promise<Authorization>;
  /** Closes the turn's open questions as cancelled (a turn cancelled while parked never waits again). */
  cancelOpenRequests(): Promise<void>;
}

export interface PermissionPort {
  /** One per turn: it may keep what cannot change within a turn (the workspace's settings file). */
  forTurn(context: PermissionContext): TurnPermissions;
}

export interface InstructionsPort {
  load(session: { ownerId: string; workspaceId: string }): Promise<InstructionsSummary>;
}

/** Cancellation of a turn, requested from any replica. */
export interface CancellationPort {
  /** A signal that aborts when the turn is cancelled (at once if it already was). */
  watch(turnId: string): Promise<{ signal: AbortSignal; dispose(): void }>;
  cancelledBy(turnId: string): Promise<string | undefined>;
}

/** Told when a turn ends, however it ends: usage counts it, and its user's running-turn place is given back. */
export interface TurnAccountingPort {
  turnEnded(turn: { userId: string; sessionId: string; turnId: string; model: string; toolCalls: number }): Promise<void>;
}
