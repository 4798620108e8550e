import type {
  ChatMessage,
  ExecRequest,
  ExecResult,
  GenerateChunk,
  GenerateRequest,
  SandboxNetwork,
  SessionEvent,
  ToolCall,
  ToolCallRequest,
  ToolCallResult,
} from '@weft/contracts';

/** What the turn runner needs from the world; NATS and Redis adapters in production, fakes in tests. */
export interface InferencePort {
  /** Aborting `signal` ends the stream early (and tells the worker to stop, where it can). */
  generate(request: GenerateRequest, signal?: AbortSignal): AsyncIterable<GenerateChunk>;
}

export interface FileToolsPort {
  call(request: ToolCallRequest): Promise<ToolCallResult>;
}

/** What a caller may add to a run; only long runs (the queue) honour them. */
export interface ExecOptions {
  /** Aborting kills the run's container. */
  signal?: AbortSignal;
  /** A long run's output as it comes, in order, in bounded chunks. */
  onOutput?: (stream: 'stdout' | 'stderr', text: string) => void;
  /** For the sandbox's log lines. */
  sessionId?: string;
  turnId?: string;
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

/** The context length of a model, from the models the workers announce; undefined when unknown. */
export interface ModelContextPort {
  contextSize(model: string): Promise<number | undefined>;
}

export interface TurnStore {
  session(sessionId: string): Promise<TurnSession | undefined>;
  messages(sessionId: string): Promise<ChatMessage[]>;
  appendMessage(sessionId: string, message: ChatMessage): Promise<void>;
  appendEvent(sessionId: string, event: SessionEvent): Promise<void>;
  endTurn(sessionId: string, turnId: string): Promise<void>;
  toolCallState(sessionId: string, callId: string): Promise<ToolCallState>;
  /** Marks a call as started; false when some run already did. */
  claimToolCall(sessionId: string, callId: string): Promise<boolean>;
  /** The outcome, the tool message and `tool.completed`, written together. */
  recordToolResult(sessionId: string, turnId: string, call: ToolCall, outcome: ToolOutcome): Promise<void>;
  saveInstructions(sessionId: string, instructions: InstructionsSummary): Promise<void>;
  contextState(sessionId: string): Promise<ContextState | undefined>;
  saveContextState(sessionId: string, state: ContextState): Promise<void>;
}

export interface PermissionContext {
  sessionId: string;
  turnId: string;
  ownerId: string;
  workspaceId: string;
  signal: AbortSignal;
  emit(event: SessionEvent): Promise<void>;
}

/** `waitedMs`: time spent waiting for a person, which the turn's wall-time budget does not count. */
export type Authorization = { allowed: true; waitedMs: number } | { allowed: false; output: string; waitedMs: number };

export interface TurnPermissions {
  authorize(call: ToolCall): Promise<Authorization>;
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
