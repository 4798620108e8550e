import type { GenerateRequest, GenerateResult, ModelInfo } from '@weft/contracts';

export interface GenerateCall {
  request: GenerateRequest;
  /** Called with each piece of text as it is generated. */
  onDelta: (text: string) => void;
  signal: AbortSignal;
}

/** One provider of models (llama.cpp, scripted, later remote APIs); picked per model by config. */
export interface InferenceDriver {
  listModels(): Promise<ModelInfo[]>;
  /** Generates one assistant message; tool calls are returned, never executed. */
  generate(modelId: string, call: GenerateCall): Promise<GenerateResult>;
  dispose(): Promise<void>;
}
