import { join } from 'node:path';
import { AppError, ErrorCode, type GenerateRequest, type GenerateResult, type ModelInfo, type WorkerModelStatus } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { DriverHooks, EmbedCall, Embedded, GenerateCall, InferenceDriver, KvStateEvent } from '../drivers/inference-driver';
import type { ChatTemplate, LlamaModelConfig } from '../registry/models-config.schema';
import { assertLoadableGguf } from './gguf-preflight';
import type { LlamaBinary } from './llama-binary';
import { memoizeContextState } from './context-state-memo';
import { LoadedModel, type GenerationLoop } from './loaded-model';
import { LlamaRuntime, type ChatWrapper, type LlamaBackend, type LlamaModel } from './llama-runtime';
import { deviceBudgetBytes, estimateModelBytes } from './memory-estimate';
import { reportModelLoading } from '../drivers/model-loading-reporter';
import { ModelResidency } from './model-residency';
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
  /** What generates replies token by token (INFERENCE_GENERATION_LOOP). */
  generationLoop?: GenerationLoop;
  /** How long building one JSON Schema's grammar may take, off the main thread (INFERENCE_GRAMMAR_BUDGET_MS). */
  grammarBudgetMs?: number;
  /** The loaded models' memory budget (MODELS_MAX_LOADED_BYTES, else the device less `marginBytes`) and idle TTL. */
  memory?: { maxLoadedBytes?: number; marginBytes: number; idleTtlMs: number };
  hooks?: DriverHooks;
}

const DEFAULT_MARGIN_BYTES = 1024 * 1024 * 1024;
/** How often idle models are checked against MODELS_IDLE_TTL_MS, at most. */
const TTL_SWEEP_MAX_MS = 5_000;

/** Sessions listed per model in a heartbeat, most recent first. */
const MAX_ANNOUNCED_SESSIONS = 256;

/**
 * Serves GGUF models with node-llama-cpp. A model is loaded on its first request; one that fails
 * to load is a typed error for that request and is tried again on the next, the worker stays up.
 * The loaded models stay within a memory budget (ModelResidency): a load that does not fit
 * unloads the least recently used idle models first, saving their sessions' KV states.
 */
export class LlamaDriver implements InferenceDriver {
  readonly continuesReplies = true;
  private readonly loading = new Map<string, Promise<LoadedModel>>();
  private readonly ready = new Map<string, LoadedModel>();
  /** The share of each loading model's weights read so far (node-llama-cpp's load progress). */
  private readonly loadProgress = new Map<string, number>();
  private readonly runtime: LlamaRuntime;
  private readonly models: LlamaModelConfig[];
  private readonly uses = new ModelUses(() => this.residency.wake());
  private readonly residency: ModelResidency;
  /** Estimated bytes per model, by its settings (a changed model is estimated anew). */
  private readonly estimates = new Map<string, Promise<number>>();
  private readonly settled = new Map<string, number>();
  /** Settings the background estimate tried once (a bad file is not re-read every heartbeat). */
  private readonly backgroundEstimated = new Set<string>();
  /** Each model's saved sessions, kept across its unloads (cleared when its settings change). */
  private readonly sessionStates = new Map<string, SessionStateStore>();
  /** Models being unloaded: a request that got one just before is sent to a fresh load. */
  private readonly retired = new WeakSet<LoadedModel>();
  private readonly changeListeners: (() => void)[] = [];
  private readonly sweeper?: NodeJS.Timeout;

  constructor(
    models: readonly LlamaModelConfig[],
    private readonly log: Logger,
    private readonly options: LlamaDriverOptions,
  ) {
    this.runtime = new LlamaRuntime(log, options.binary, options.grammarBudgetMs);
    this.models = [...models];
    const memory = options.memory;
    this.residency = new ModelResidency({
      budgetBytes: memory?.maxLoadedBytes ?? (async () => deviceBudgetBytes(await this.runtime.get(), memory?.marginBytes ?? DEFAULT_MARGIN_BYTES)),
      busy: (id) => {
        const ready = this.ready.get(id);
        return ready === undefined || this.uses.busy(ready);
      },
      evict: (id) => this.unload(id, 'keep-states'),
    });
    const ttl = memory?.idleTtlMs ?? 0;
    if (ttl > 0) this.sweeper = setInterval(() => this.unloadExpired(ttl), Math.min(ttl, TTL_SWEEP_MAX_MS)).unref();
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

  onModelsChanged(listener: () => void): void {
    this.changeListeners.push(listener);
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener();
  }

  async status(): Promise<WorkerModelStatus[]> {
    this.estimateUnloaded();
    return this.models.map((config) => {
      const loaded = this.ready.get(config.id);
      const stats = loaded?.stats();
      const memoryBytes = this.residency.bytesOf(config.id) ?? this.knownEstimate(config);
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
        state: loaded ? 'loaded' : this.loading.has(config.id) ? 'loading' : 'unloaded',
        ...(memoryBytes === undefined ? {} : { memoryBytes }),
        pinned: config.pinned,
      };
    });
  }

  memory() {
    return this.residency.memory();
  }

  streamIntervalMs(modelId: string): number {
    return this.models.find((model) => model.id === modelId)?.streamIntervalMs ?? 0;
  }

  async generate(modelId: string, call: GenerateCall): Promise<GenerateResult> {
    const { onModelLoading } = call;
    const loaded = this.ready.has(modelId) || !onModelLoading;
    const stopReporting = loaded ? undefined : reportModelLoading(() => this.loadProgress.get(modelId) ?? 0, onModelLoading);
    try {
      return await this.use(modelId, (model) => {
        stopReporting?.();
        return model.generate(call);
      });
    } finally {
      stopReporting?.();
    }
  }

  async countTokens(modelId: string, request: GenerateRequest): Promise<number> {
    return this.use(modelId, (model) => model.countTokens(request));
  }

  async embed(modelId: string, call: EmbedCall): Promise<Embedded> {
    const config = this.models.find((m) => m.id === modelId);
    if (config && !config.embeddings) {
      throw new AppError(ErrorCode.InvalidRequest, `Model "${modelId}" does not serve embeddings; the registry declares it without "embeddings": true`, {
        model: modelId,
      });
    }
    return this.use(modelId, (model) => model.embed(call));
  }

  gpu() {
    return this.runtime.gpu();
  }

  /** Loads every model now instead of on first use (a worker that should be warm at start). */
  async preload(): Promise<void> {
    await Promise.allSettled(this.models.map((m) => this.load(m.id)));
  }

  async dispose(): Promise<void> {
    clearInterval(this.sweeper);
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
    // Its settings changed or it is gone: states saved under the old settings must not be loaded.
    this.unload(modelId, 'clear-states').catch((err: unknown) => this.log.warn({ model: modelId, err }, 'could not dispose an unloaded model'));
  }

  private unloadExpired(ttlMs: number): void {
    for (const id of this.residency.expired(ttlMs)) {
      this.log.info({ model: id, idleTtlMs: ttlMs }, 'unloading an idle model');
      this.unload(id, 'keep-states').catch((err: unknown) => this.log.warn({ model: id, err }, 'could not unload an idle model'));
    }
  }

  /**
   * Forgets the loaded copy now (the next request loads anew) and disposes it once its calls are
   * done; its memory counts as free from then on.
   */
  private async unload(modelId: string, states: 'keep-states' | 'clear-states'): Promise<void> {
    const loading = this.loading.get(modelId);
    const ready = this.ready.get(modelId);
    if (ready) this.retired.add(ready);
    this.loading.delete(modelId);
    this.ready.delete(modelId);
    try {
      const model = await loading?.catch(() => undefined);
      if (model) {
        // New requests no longer find it; the replies it is writing are let finish first.
        await this.uses.idle(model);
        if (states === 'keep-states') await model.saveSessions();
        await model.dispose(states === 'keep-states');
        this.log.info({ model: modelId }, 'model unloaded');
      }
      if (states === 'clear-states') {
        await this.sessionStates.get(modelId)?.clear();
        this.sessionStates.delete(modelId);
      }
    } finally {
      this.residency.release(modelId);
      this.changed();
    }
  }

  /** Runs `work` on the loaded model, loading it first (and making room for it) when it is not. */
  private async use<T>(modelId: string, work: (model: LoadedModel) => T | Promise<T>): Promise<T> {
    for (;;) {
      const model = await this.load(modelId);
      // Unloaded between its load and now (to make room, or by the TTL): load it again.
      if (this.retired.has(model)) continue;
      this.residency.touch(modelId);
      return this.uses.run(model, () => work(model));
    }
  }

  private load(modelId: string): Promise<LoadedModel> {
    const config = this.models.find((m) => m.id === modelId);
    if (!config) throw new AppError(ErrorCode.UnknownModel, `Unknown model "${modelId}"`, { model: modelId });
    let loading = this.loading.get(modelId);
    if (!loading) {
      loading = this.open(config);
      this.loading.set(modelId, loading);
      this.changed();
      loading.then(
        (model) => {
          this.ready.set(modelId, model);
          this.changed();
        },
        () => {
          this.loading.delete(modelId);
          this.changed();
        },
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
    let admitted = false;
    try {
      const bytes = await this.estimate(backend, { ...config, path });
      await this.residency.admit(config.id, bytes, config.pinned);
      admitted = true;
      this.loadProgress.set(config.id, 0);
      const model = await backend.llama.loadModel({
        modelPath: path,
        gpuLayers: config.gpuLayers,
        // The context is made after the weights: they count as nine tenths of the load.
        onLoadProgress: (progress) => this.loadProgress.set(config.id, progress * 0.9),
      });
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
      const states = this.statesOf(config.id);
      const onKvState = (event: KvStateEvent) => this.options.hooks?.kvState?.(config.id, event);
      const loaded = new LoadedModel(backend, model, context, chatWrapper, config, this.log.child({ model: config.id }), states, onKvState, this.options.generationLoop);
      const seconds = (performance.now() - started) / 1000;
      this.loadProgress.delete(config.id);
      this.options.hooks?.modelLoaded?.(config.id, seconds);
      this.log.info({ model: config.id, chatWrapper: chatWrapper.wrapperName, ms: Math.round(seconds * 1000), bytes }, 'model loaded');
      return loaded;
    } catch (error) {
      if (admitted) this.residency.release(config.id);
      this.loadProgress.delete(config.id);
      const reason = error instanceof Error ? error.message : String(error);
      this.log.error({ model: config.id, path, err: error }, 'model failed to load');
      throw new AppError(ErrorCode.ModelLoadFailed, `Model "${config.id}" could not be loaded: ${reason}`, { model: config.id }, false, {
        cause: error,
      });
    }
  }
  private statesOf(modelId: string): SessionStateStore | undefined {
    const kv = this.options.kvState;
    if (!kv) return undefined;
    let states = this.sessionStates.get(modelId);
    if (!states) {
      states = new SessionStateStore(join(kv.dir, `${kv.owner}.${safeName(modelId)}`), kv.maxBytes, this.log.child({ model: modelId }));
      this.sessionStates.set(modelId, states);
    }
    return states;
  }

  private estimate(backend: LlamaBackend, config: LlamaModelConfig): Promise<number> {
    const key = JSON.stringify(config);
    let estimate = this.estimates.get(key);
    if (!estimate) {
      estimate = assertLoadableGguf(backend.lib, config.path).then(() => estimateModelBytes(backend, config));
      this.estimates.set(key, estimate);
      estimate.then(
        (bytes) => this.settled.set(key, bytes),
        // A file that could not be read may be replaced: estimate it anew next time.
        () => this.estimates.delete(key),
      );
    }
    return estimate;
  }

  private knownEstimate(config: LlamaModelConfig): number | undefined {
    return this.settled.get(JSON.stringify(config));
  }

  /** Estimates the unloaded local models in the background once llama.cpp runs, for the fleet's routing. */
  private estimateUnloaded(): void {
    if (!this.runtime.started) return;
    for (const config of this.models) {
      const key = JSON.stringify(config);
      if (config.remote || this.settled.has(key) || this.estimates.has(key) || this.backgroundEstimated.has(key)) continue;
      this.backgroundEstimated.add(key);
      void this.runtime
        .get()
        .then((backend) => this.estimate(backend, config))
        .catch((err: unknown) => this.log.debug({ model: config.id, err }, 'could not estimate the model memory'));
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
