import { join } from 'node:path';
import { AppError, ErrorCode, type GenerateRequest, type GenerateResult, type ModelInfo, type WorkerModelStatus } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { DriverHooks, GenerateCall, InferenceDriver, KvStateEvent } from '../drivers/inference-driver';
import type { ChatTemplate, LlamaModelConfig } from '../registry/models-config.schema';
import { assertLoadableGguf } from './gguf-preflight';
import type { LlamaBinary } from './llama-binary';
import { memoizeContextState } from './context-state-memo';
import { LoadedModel } from './loaded-model';
import { LlamaRuntime, type ChatWrapper, type LlamaBackend, type LlamaModel } from './llama-runtime';
import { resolveRemoteModel } from './model-source';
import { ModelUses } from './model-uses';
import { SessionStateStore } from './session-state-store';

export interface LlamaDriverOptions {
  /** Where `hf:` and URL sources are downloaded. */
  downloadDir: string;
  /**
   * Saves evicted sessions' KV caches under `dir` when set. The folder may be shared by several
   * workers (a volume): each keeps a folder per model in it, named by `owner`.
   */
  kvState?: { dir: string; owner: string; maxBytes: number };
  /** Which llama.cpp binary to load (LLAMA_BINARY). */
  binary?: LlamaBinary;
  hooks?: DriverHooks;
}

/** Sessions listed per model in a heartbeat, most recent first. */
const MAX_ANNOUNCED_SESSIONS = 256;

/**
 * Serves GGUF models with node-llama-cpp. A model is loaded on its first request; one that fails
 * to load is a typed error for that request and is tried again on the next, the worker stays up.
 */
export class LlamaDriver implements InferenceDriver {
  private readonly loading = new Map<string, Promise<LoadedModel>>();
  private readonly ready = new Map<string, LoadedModel>();
  private readonly runtime: LlamaRuntime;
  private readonly models: LlamaModelConfig[];
  private readonly uses = new ModelUses();

  constructor(
    models: readonly LlamaModelConfig[],
    private readonly log: Logger,
    private readonly options: LlamaDriverOptions,
  ) {
    this.runtime = new LlamaRuntime(log, options.binary);
    this.models = [...models];
  }

  /**
   * Serves a model registered while the worker runs (`weft admin models pull`), or its changed
   * settings: a loaded copy with other settings is unloaded, and the next request loads it anew.
   */
  register(config: LlamaModelConfig): void {
    const index = this.models.findIndex((m) => m.id === config.id);
    if (index >= 0 && JSON.stringify(this.models[index]) === JSON.stringify(config)) return;
    if (index >= 0) {
      this.models[index] = config;
      this.unloadSoon(config.id);
    } else {
      this.models.push(config);
    }
    this.log.info({ model: config.id, path: config.path }, 'model registered');
  }

  /** Stops serving a model; requests for it get INFERENCE.UNKNOWN_MODEL from now on. */
  unregister(modelId: string): void {
    const index = this.models.findIndex((m) => m.id === modelId);
    if (index < 0) return;
    this.models.splice(index, 1);
    this.unloadSoon(modelId);
    this.log.info({ model: modelId }, 'model unregistered');
  }

  async listModels(): Promise<ModelInfo[]> {
    return this.models.map(info);
  }

  async status(): Promise<WorkerModelStatus[]> {
    return this.models.map((config) => {
      const loaded = this.ready.get(config.id);
      const stats = loaded?.stats();
      // The express sequences are in the pool, so in its free count: in the total too (not `3/2` free).
      const total = config.sequences + config.expressSequences;
      return {
        ...info(config),
        sequences: total,
        loaded: loaded !== undefined,
        freeSequences: stats?.free ?? total,
        queued: stats?.queued ?? 0,
        maxQueue: config.maxQueue,
        cachedSessions: (stats?.sessions ?? []).slice(0, MAX_ANNOUNCED_SESSIONS),
      };
    });
  }

  streamIntervalMs(modelId: string): number {
    return this.models.find((model) => model.id === modelId)?.streamIntervalMs ?? 0;
  }

  async generate(modelId: string, call: GenerateCall): Promise<GenerateResult> {
    const model = await this.load(modelId);
    return this.uses.run(model, () => model.generate(call));
  }

  async countTokens(modelId: string, request: GenerateRequest): Promise<number> {
    const model = await this.load(modelId);
    return this.uses.run(model, () => model.countTokens(request));
  }

  async embed(modelId: string, input: readonly string[]): Promise<{ embeddings: number[][]; promptTokens: number }> {
    const config = this.models.find((m) => m.id === modelId);
    if (config && !config.embeddings) {
      throw new AppError(ErrorCode.InvalidRequest, `Model "${modelId}" does not serve embeddings; the registry declares it without "embeddings": true`, {
        model: modelId,
      });
    }
    const model = await this.load(modelId);
    return this.uses.run(model, () => model.embed(input));
  }

  gpu() {
    return this.runtime.gpu();
  }

  /** Loads every model now instead of on first use (a worker that should be warm at start). */
  async preload(): Promise<void> {
    await Promise.allSettled(this.models.map((m) => this.load(m.id)));
  }

  async dispose(): Promise<void> {
    const models = await Promise.allSettled(this.loading.values());
    this.loading.clear();
    this.ready.clear();
    for (const result of models) {
      if (result.status === 'fulfilled') await result.value.dispose();
    }
    await this.runtime.dispose();
  }

  /** Forgets the loaded copy now (the next request loads anew) and disposes it once its calls are done. */
  private unloadSoon(modelId: string): void {
    this.unload(modelId).catch((err: unknown) => this.log.warn({ model: modelId, err }, 'could not dispose an unloaded model'));
  }

  private async unload(modelId: string): Promise<void> {
    const loading = this.loading.get(modelId);
    this.loading.delete(modelId);
    this.ready.delete(modelId);
    const model = await loading?.catch(() => undefined);
    if (!model) return;
    // New requests no longer find it; the replies it is writing are let finish first.
    await this.uses.idle(model);
    await model.dispose();
  }

  private load(modelId: string): Promise<LoadedModel> {
    const config = this.models.find((m) => m.id === modelId);
    if (!config) throw new AppError(ErrorCode.UnknownModel, `Unknown model "${modelId}"`, { model: modelId });
    let loading = this.loading.get(modelId);
    if (!loading) {
      loading = this.open(config);
      this.loading.set(modelId, loading);
      loading.then(
        (model) => this.ready.set(modelId, model),
        () => this.loading.delete(modelId),
      );
    }
    return loading;
  }

  private async open(config: LlamaModelConfig): Promise<LoadedModel> {
    const started = performance.now();
    const backend = await this.runtime.get();
    const path = config.remote
      ? await resolveRemoteModel(backend.lib, config.id, config.remote, this.options.downloadDir, this.log)
      : config.path;
    try {
      await assertLoadableGguf(backend.lib, path);
      const model = await backend.llama.loadModel({ modelPath: path, gpuLayers: config.gpuLayers });
      const context = await model
        .createContext({
          contextSize: config.contextSize,
          sequences: config.sequences + config.expressSequences,
          threads: config.threads,
          batchSize: config.batchSize,
        })
        .catch(async (error: unknown) => {
          await model.dispose();
          throw error;
        });
      const chatWrapper = memoizeContextState(resolveWrapper(backend, model, config.chatTemplate));
      const kv = this.options.kvState;
      const states = kv && new SessionStateStore(join(kv.dir, `${kv.owner}.${safeName(config.id)}`), kv.maxBytes, this.log.child({ model: config.id }));
      const onKvState = (event: KvStateEvent) => this.options.hooks?.kvState?.(config.id, event);
      const loaded = new LoadedModel(backend, model, context, chatWrapper, config, this.log.child({ model: config.id }), states, onKvState);
      const seconds = (performance.now() - started) / 1000;
      this.options.hooks?.modelLoaded?.(config.id, seconds);
      this.log.info({ model: config.id, chatWrapper: chatWrapper.wrapperName, ms: Math.round(seconds * 1000) }, 'model loaded');
      return loaded;
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      this.log.error({ model: config.id, path, err: error }, 'model failed to load');
      throw new AppError(ErrorCode.ModelLoadFailed, `Model "${config.id}" could not be loaded: ${reason}`, { model: config.id }, false, {
        cause: error,
      });
    }
  }
}

function info(config: LlamaModelConfig): ModelInfo {
  return {
    id: config.id,
    provider: 'llama',
    contextSize: config.contextSize,
    sequences: config.sequences,
    ...(config.roles.length > 0 ? { roles: config.roles } : {}),
    ...(config.embeddings ? { embeddings: true } : {}),
  };
}

export function resolveWrapper({ lib }: LlamaBackend, model: LlamaModel, template: ChatTemplate): ChatWrapper {
  if (typeof template === 'object') return new lib.JinjaTemplateChatWrapper({ template: template.jinja });
  return lib.resolveChatWrapper(model, { type: template });
}

function safeName(id: string): string {
  return id.replace(/[^A-Za-z0-9._-]/g, '_');
}
