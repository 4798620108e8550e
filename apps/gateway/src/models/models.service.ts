import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type ModelInfo, Routes } from '@weft/contracts';
import { RpcClient } from '@weft/messaging';

/** The models the inference workers serve; asked each time, so a new model shows up at once. */
@Injectable()
export class ModelsService {
  constructor(private readonly rpc: RpcClient) {}

  async list(): Promise<{ models: ModelInfo[] }> {
    const { models } = await this.rpc.request(Routes.inferenceListModels, {});
    return { models };
  }

  async assertKnown(modelId: string): Promise<ModelInfo> {
    const { models } = await this.list();
    const model = models.find((m) => m.id === modelId);
    if (model) return model;
    const known = models.map((m) => m.id);
    throw new AppError(
      ErrorCode.UnknownModel,
      `Unknown model "${modelId}"; known models: ${known.length ? known.join(', ') : '(none)'}`,
      { model: modelId, known },
    );
  }
}
