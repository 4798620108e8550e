import { AppError, ErrorCode, type GenerateResult, type ModelInfo } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { GenerateCall, InferenceDriver } from '../drivers/inference-driver';
import type { LlamaModelConfig } from '../registry/models-config.schema';
import { assertLoadableGguf } from './gguf-preflight';
import { LoadedModel } from './loaded-model';
import { LlamaRuntime } from './llama-runtime';

/**
 * Serves GGUF models with node-llama-cpp. A model is loaded on its first request; one that fails
 * to load is a typed error for that request and is tried again on the next, the worker stays up.
 */
export class LlamaDriver implements InferenceDriver {
  private readonly loaded = new Map<string, Promise<LoadedModel>>();
  private readonly runtime: LlamaRuntime;

  constructor(
    private readonly models: readonly LlamaModelConfig[],
    private readonly log: Logger,
  ) {
    this.runtime = new LlamaRuntime(log);
  }

  async listModels(): Promise<ModelInfo[]> {
    return this.models.map((m) => ({ id: m.id, provider: 'llama', contextSize: m.contextSize }));
  }

  async generate(modelId: string, call: GenerateCall): Promise<GenerateResult> {
    const model = await this.load(modelId);
    return model.generate(call);
  }

  async dispose(): Promise<void> {
    const models = await Promise.allSettled(this.loaded.values());
    this.loaded.clear();
    for (const result of models) {
      if (result.status === 'fulfilled') await result.value.dispose();
    }
    await this.runtime.dispose();
  }

  private load(modelId: string): Promise<LoadedModel> {
    const config = this.models.find((m) => m.id === modelId);
    if (!config) throw new AppError(ErrorCode.UnknownModel, `Unknown model "${modelId}"`, { model: modelId });
    let loading = this.loaded.get(modelId);
    if (!loading) {
      loading = this.open(config);
      this.loaded.set(modelId, loading);
      void loading.catch(() => this.loaded.delete(modelId));
    }
    return loading;
  }

  private async open(config: LlamaModelConfig): Promise<LoadedModel> {
    const started = performance.now();
    try {
      const { lib, llama } = await this.runtime.get();
      await assertLoadableGguf(lib, config.path);
      const model = await llama.loadModel({ modelPath: config.path, gpuLayers: config.gpuLayers });
      const context = await model
        .createContext({ contextSize: config.contextSize, sequences: config.sequences, threads: config.threads })
        .catch(async (error: unknown) => {
          await model.dispose();
          throw error;
        });
      const chatWrapper = lib.resolveChatWrapper(model);
      const loaded = new LoadedModel(lib, model, context, chatWrapper);
      this.log.info(
        { model: config.id, chatWrapper: chatWrapper.wrapperName, ms: Math.round(performance.now() - started) },
        'model loaded',
      );
      return loaded;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.log.error({ model: config.id, path: config.path, err: error }, 'model failed to load');
      throw new AppError(
        ErrorCode.ModelLoadFailed,
        `Model "${config.id}" could not be loaded: ${reason}`,
        { model: config.id },
        false,
        { cause: error },
      );
    }
  }
}
