import type {
  ChatMessage,
  ExecRequest,
  ExecResult,
  GenerateChunk,
  GenerateRequest,
  SessionEvent,
  ToolCallRequest,
  ToolCallResult,
} from '@weft/contracts';

/** What the turn runner needs from the world; NATS and Redis adapters in production, fakes in tests. */
export interface InferencePort {
  generate(request: GenerateRequest): AsyncIterable<GenerateChunk>;
}

export interface FileToolsPort {
  call(request: ToolCallRequest): Promise<ToolCallResult>;
}

export interface SandboxPort {
  exec(request: ExecRequest): Promise<ExecResult>;
}

export interface TurnSession {
  workspaceId: string;
  model: string;
  activeTurnId: string | null;
}

export interface TurnStore {
  session(sessionId: string): Promise<TurnSession | undefined>;
  messages(sessionId: string): Promise<ChatMessage[]>;
  appendMessage(sessionId: string, message: ChatMessage): Promise<void>;
  appendEvent(sessionId: string, event: SessionEvent): Promise<void>;
  endTurn(sessionId: string, turnId: string): Promise<void>;
}
