import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { Inject, Injectable, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import type { InferenceConfig } from '@weft/config';
import { AppError, ErrorCode, Routes, type AdminModel, type ModelSettings, type PullProgress } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { NatsEventBus } from '@weft/messaging';
import type { Subscription } from 'nats';
import { Observable } from 'rxjs';
import type { z } from 'zod';
import type { InferenceDriver } from '../drivers/inference-driver';
import { LlamaDriver } from '../llama/llama.driver';
import { EVENT_BUS, INFERENCE_CONFIG, INFERENCE_DRIVERS, LOGGER, MODELS_CONFIG, WORKER_IDENTITY, type WorkerIdentity } from '../tokens';
import type { ModelsConfig } from './models-config.schema';
import { adminModelOfConfig, adminModelOfPulled } from './admin-model-view';
import { defaultContextSize, readGgufFacts } from './pull/gguf-facts';
import { probeSource } from './pull/expected-digest';
import { defaultModelId, resolveModelSource } from './pull/model-source';
import { pullFailed } from './pull/pull-errors';
import { downloadResumable, partialBytes, pullCap } from './pull/resumable-download';
import { ggufFileChecks } from '../gguf-validation/gguf-checks';
import { PulledModelsStore, type PulledModel } from './pulled-models.store';

type PullBody = z.infer<typeof Routes.inferenceModelsPull.request>;

/**
 * The registry of pulled models: downloads a GGUF into MODELS_DIR, registers it with defaults from
 * its metadata, and keeps every worker's llama driver in step with `weft-models.json` (re-read on
 * each `models.changed` event and at start), so a new model is served without a restart.
 */
@Injectable()
export class ModelRegistryService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly store: PulledModelsStore;
  private readonly llama: LlamaDriver;
  /** Files being downloaded by this worker: a second pull of one is refused, not interleaved. */
  private readonly pulling = new Set<string>();
  /** Registry writes of this worker, one after another. */
  private writes: Promise<unknown> = Promise.resolve();
  private subscription?: Subscription;

  constructor(
    @Inject(MODELS_CONFIG) private readonly config: ModelsConfig,
    @Inject(INFERENCE_CONFIG) private readonly inferenceConfig: InferenceConfig,
    @Inject(INFERENCE_DRIVERS) drivers: InferenceDriver[],
    @Inject(LOGGER) private readonly log: Logger,
    @Inject(EVENT_BUS) private readonly bus: NatsEventBus,
    @Inject(WORKER_IDENTITY) private readonly worker: WorkerIdentity,
  ) {
    this.store = new PulledModelsStore(inferenceConfig.MODELS_DIR);
    const llama = drivers.find((driver): driver is LlamaDriver => driver instanceof LlamaDriver);
    if (!llama) throw new Error('the llama driver is missing');
    this.llama = llama;
  }

  async onApplicationBootstrap(): Promise<void> {
    this.subscription = this.bus.subscribe(Routes.inferenceModelsChanged, ({ workerId }) => {
      if (workerId !== this.worker.workerId) void this.sync();
    });
    await this.bus.flush();
    await this.sync();
  }

  onApplicationShutdown(): void {
    this.subscription?.unsubscribe();
  }

  async list(): Promise<{ models: AdminModel[] }> {
    const pulled = await this.store.read();
    const models = [...this.config.models.map(adminModelOfConfig), ...pulled.map(adminModelOfPulled)];
    return { models: await Promise.all(models.map((model) => this.withQuarantine(model))) };
  }

  pull(body: PullBody): Observable<PullProgress> {
    return new Observable<PullProgress>((subscriber) => {
      this.runPull(body, (event) => subscriber.next(event)).then(
        (model) => {
          subscriber.next({ type: 'done', model });
          subscriber.complete();
        },
        (error: unknown) => subscriber.error(error),
      );
    });
  }

  async set(id: string, settings: ModelSettings): Promise<AdminModel> {
    this.assertNotConfigured(id);
    const updated = await this.write(async () => {
      let found: PulledModel | undefined;
      await this.store.update((models) =>
        models.map((model) => {
          if (model.id !== id) return model;
          found = { ...model, settings: { ...model.settings, ...settings } };
          this.store.configOf(found); // throws on settings the llama schema refuses
          return found;
        }),
      );
      if (!found) throw unknownPulled(id);
      return found;
    });
    this.llama.register(this.store.configOf(updated));
    this.announce(id);
    return adminModelOfPulled(updated);
  }

  async remove(id: string, keepFile: boolean): Promise<{ id: string; fileRemoved: boolean }> {
    this.assertNotConfigured(id);
    const { removed, fileShared } = await this.write(async () => {
      let found: PulledModel | undefined;
      const left = await this.store.update((models) => models.filter((model) => (model.id === id ? ((found = model), false) : true)));
      if (!found) throw unknownPulled(id);
      return { removed: found, fileShared: left.some((model) => model.file === found?.file) };
    });
    this.llama.unregister(id);
    this.announce(id);
    // A worker still writing a reply with it keeps reading the file it opened.
    const deleting = !keepFile && !fileShared;
    if (deleting) await rm(join(this.store.modelsDir, removed.file), { force: true });
    return { id, fileRemoved: deleting };
  }

  private async runPull(body: PullBody, emit: (event: PullProgress) => void): Promise<AdminModel> {
    const source = resolveModelSource(body.source, this.inferenceConfig.HF_ENDPOINT);
    const id = body.id ?? defaultModelId(source.file);
    this.assertNotConfigured(id);
    const pulled = await this.store.read();
    if (pulled.some((model) => model.id === id)) {
      throw pullFailed('id-taken', `A pulled model is already registered as "${id}": remove it first (weft admin models remove ${id}) or pull under another --id`, { id });
    }
    const sameFile = pulled.find((model) => model.file === source.file);
    if (sameFile) {
      throw pullFailed('id-taken', `${source.file} is pulled already, as "${sameFile.id}": give that model other settings with weft admin models set ${sameFile.id}`, { id: sameFile.id, file: source.file });
    }
    if (this.pulling.has(source.file)) {
      throw new AppError(ErrorCode.Conflict, `${source.file} is being pulled already; wait for that pull to end`, { file: source.file });
    }
    this.pulling.add(source.file);
    const dest = join(this.store.modelsDir, source.file);
    try {
      const expected = await probeSource(source, body.sha256);
      const cap = await pullCap(this.store.modelsDir, body.maxSizeBytes, await partialBytes(dest));
      emit({ type: 'started', id, url: source.url, file: source.file, totalBytes: expected.sizeBytes, resumedFrom: await partialBytes(dest), checksum: expected.checksum });
      this.log.info({ model: id, url: source.url, totalBytes: expected.sizeBytes, checksum: expected.checksum }, 'pulling model');
      const file = await downloadResumable({
        url: source.url,
        dest,
        expected,
        cap,
        onProgress: (event) =>
          emit(
            event.phase === 'download'
              ? { type: 'progress', downloadedBytes: event.downloadedBytes, totalBytes: event.totalBytes }
              : { type: 'verifying', hashedBytes: event.hashedBytes, totalBytes: event.totalBytes },
          ),
      });
      const gguf = await readGgufFacts(dest).catch(async (error: unknown) => {
        await rm(dest, { force: true });
        throw error;
      });
      const entry: PulledModel = {
        id,
        file: source.file,
        source: source.source,
        sha256: file.sha256,
        sizeBytes: file.sizeBytes,
        pulledAt: new Date().toISOString(),
        gguf,
        settings: { contextSize: defaultContextSize(gguf), ...body.settings },
      };
      const config = this.store.configOf(entry);
      await this.write(() => this.store.update((models) => [...models.filter((model) => model.id !== id), entry]));
      this.llama.register(config);
      this.announce(id);
      this.log.info({ model: id, file: source.file, sizeBytes: file.sizeBytes, gguf }, 'model pulled and registered');
      return adminModelOfPulled(entry);
    } catch (error) {
      this.log.warn({ model: id, url: source.url, err: error }, 'pull failed');
      throw error;
    } finally {
      this.pulling.delete(source.file);
    }
  }

  /** The model as listed, with why its file is refused when the validator refuses it. */
  private async withQuarantine(model: AdminModel): Promise<AdminModel> {
    if (model.provider !== 'llama' || !model.file || (model.origin === 'config' && model.source)) return model;
    const problem = await ggufFileChecks.problemOf(resolve(this.store.modelsDir, model.file));
    return problem ? { ...model, quarantined: problem } : model;
  }

  /** Brings the llama driver in step with the registry file: new and changed models in, removed ones out. */
  private async sync(): Promise<void> {
    try {
      const pulled = await this.store.read();
      for (const model of pulled) this.llama.register(this.store.configOf(model));
      const configured = new Set(this.config.models.map((model) => model.id));
      const kept = new Set(pulled.map((model) => model.id));
      for (const { id } of await this.llama.listModels()) {
        if (!configured.has(id) && !kept.has(id)) this.llama.unregister(id);
      }
    } catch (error) {
      this.log.error({ err: error, path: this.store.path }, 'could not read the pulled models');
    }
  }

  private announce(id: string): void {
    this.bus.publish(Routes.inferenceModelsChanged, { workerId: this.worker.workerId, id });
  }

  private write<T>(work: () => Promise<T>): Promise<T> {
    const next = this.writes.then(work, work);
    this.writes = next.catch(() => undefined);
    return next;
  }

  private assertNotConfigured(id: string): void {
    if (this.config.models.some((model) => model.id === id)) {
      throw pullFailed('id-taken', `"${id}" is declared in the models config file (MODELS_CONFIG): change it there, or pull under another --id`, { id });
    }
  }
}

function unknownPulled(id: string): AppError {
  return new AppError(ErrorCode.UnknownModel, `No pulled model "${id}" (weft admin models list shows them)`, { model: id });
}
