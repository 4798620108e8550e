import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type ListedModel, type ModelInfo, replyTokenLimit, Routes, type WorkerHeartbeat } from '@weft/contracts';
import { RpcClient } from '@weft/messaging';
import { ModelAccess } from '../auth/oidc/model-access';
import { FleetRegistry } from '../fleet/fleet-registry';

/**
 * The models the inference workers serve: from the fleet's heartbeats (so a model shows up as
 * soon as a worker announces it, and goes when the last worker serving it does), or, before any
 * heartbeat has been heard, by asking a worker over NATS.
 */
@Injectable()
export class ModelsService {
  constructor(
    private readonly rpc: RpcClient,
    private readonly fleet: FleetRegistry,
    private readonly access: ModelAccess,
  ) {}

  /**
   * What a user is shown: the fleet's models less those their groups do not let them use
   * (WEFT_OIDC_GROUP_MODELS), each with its output limit, so that clients can size their context.
   */
  async listFor(userId: string): Promise<{ models: ListedModel[] }> {
    const models = await this.access.filter(userId, (await this.list()).models);
    return { models: models.map((model) => ({ ...model, maxOutputTokens: replyTokenLimit(model.contextSize) })) };
  }

  /** One model as a user asks for it: 404 when unknown, 403 naming it when their groups do not allow it. */
  async assertUsable(userId: string, modelId: string): Promise<ModelInfo> {
    const model = await this.assertKnown(modelId, userId);
    await this.access.assertAllowed(userId, modelId);
    return model;
  }

  async list(): Promise<{ models: ModelInfo[] }> {
    const workers = await this.fleet.snapshot();
    if (workers.length > 0) return { models: modelsOf(workers) };
    const { models } = await this.rpc.request(Routes.inferenceListModels, {});
    return { models };
  }

  /**
   * The model, or 404 `INFERENCE.UNKNOWN_MODEL` listing the known ones: those `userId`'s groups
   * let them use, so that an error never names a model hidden from them.
   */
  async assertKnown(modelId: string, userId: string | undefined): Promise<ModelInfo> {
    const { models } = await this.list();
    const model = models.find((m) => m.id === modelId);
    if (model) return model;
    throw unknownModel(modelId, userId === undefined ? models : await this.access.filter(userId, models));
  }
}

/**
 * A worker without the model names every model it serves: the same error naming only `usable`,
 * the models the user may use. Any other error as it is.
 */
export async function inUsersTerms(error: unknown, modelId: string, usable: () => Promise<readonly ModelInfo[]>): Promise<unknown> {
  return error instanceof AppError && error.code === ErrorCode.UnknownModel ? unknownModel(modelId, await usable()) : error;
}

/** 404 `INFERENCE.UNKNOWN_MODEL` naming `known`, which the caller has cut to the models the user may use. */
export function unknownModel(modelId: string, known: readonly ModelInfo[]): AppError {
  const ids = known.map((m) => m.id);
  return new AppError(ErrorCode.UnknownModel, `Unknown model "${modelId}"; known models: ${ids.length ? ids.join(', ') : '(none)'}`, { model: modelId, known: ids });
}

/** One entry per model id across the workers that are not on their way out. */
export function modelsOf(workers: readonly WorkerHeartbeat[]): ModelInfo[] {
  const byId = new Map<string, ModelInfo>();
  for (const worker of workers) {
    if (worker.status !== 'ready') continue;
    for (const { id, provider, contextSize, roles, sequences, embeddings } of worker.models) {
      if (byId.has(id)) continue;
      byId.set(id, { id, provider, contextSize, ...(roles ? { roles } : {}), ...(sequences ? { sequences } : {}), ...(embeddings ? { embeddings } : {}) });
    }
  }
  return [...byId.values()];
}
