import type { ModelLoadingProgress } from './model-loading-reporter';
import type { GenerateRequest, GenerateResult, ModelInfo, WorkerHeartbeat, WorkerModelStatus } from '@weft/contracts';

export type GpuStatus = NonNullable<WorkerHeartbeat['gpu']>;

export interface GenerateCall {
  request: GenerateRequest;
  /** Called with each piece of text as it is generated. */
  onDelta: (text: string) => void;
  signal: AbortSignal;
  /** Called while the model is being loaded for this call (models on demand), before any delta. */
  onModelLoading?: (loading: ModelLoadingProgress) => void;
}

/** One embedding request as a driver takes it. */
export interface EmbedCall {
  input: readonly string[];
  /** Whose request it is: inputs of concurrent requests take turns in fair order across users. */
  user?: { id: string; weight?: number };
  /** Aborted when the caller cancels: the driver stops between two inputs. */
  signal: AbortSignal;
}

export interface Embedded {
  embeddings: number[][];
  /** Tokens of all inputs together. */
  promptTokens: number;
}

/** What drivers report to the rest of the worker (metrics). */
export interface DriverHooks {
  modelLoaded?(modelId: string, seconds: number): void;
  /** An evicted session's KV state saved to disk, a returning one's restored, or either failing. */
  kvState?(modelId: string, event: KvStateEvent): void;
}

export type KvStateEvent = 'saved' | 'restored' | 'save_failed' | 'restore_failed';

/** One provider of models (llama.cpp, scripted, remote APIs); picked per model by config. */
export interface InferenceDriver {
  listModels(): Promise<ModelInfo[]>;
  /** Load and free capacity per model, for the heartbeat and the metrics. */
  status(): Promise<WorkerModelStatus[]>;
  /** Calls `listener` when a model starts or finishes loading or is unloaded: the heartbeat says so at once. */
  onModelsChanged?(listener: () => void): void;
  /** How long a model's text deltas may be held to send several as one message; 0 (absent) for none. */
  streamIntervalMs?(modelId: string): number;
  /**
   * Takes `continueFrom` (a reply moved from a lost worker): the reply so far is evaluated as
   * prompt and continued. Absent: such a request is refused (remote APIs differ in prefill).
   */
  readonly continuesReplies?: boolean;
  /** Generates one assistant message; tool calls are returned, never executed. */
  generate(modelId: string, call: GenerateCall): Promise<GenerateResult>;
  /** Tokens of the rendered prompt, exactly; drivers without a tokenizer leave it out and get an estimate. */
  countTokens?(modelId: string, request: GenerateRequest): Promise<number>;
  /** One vector per input, for models declared with `embeddings: true`. */
  embed?(modelId: string, call: EmbedCall): Promise<Embedded>;
  /** The accelerator this driver runs on, when it runs on one and has started. */
  gpu?(): Promise<GpuStatus | undefined>;
  /** The loaded models' memory budget and use, for drivers that keep one. */
  memory?(): WorkerHeartbeat['memory'];
  dispose(): Promise<void>;
}
