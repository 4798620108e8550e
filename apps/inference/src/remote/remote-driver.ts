import { AppError, ErrorCode, type GenerateRequest, type GenerateResult, type ModelInfo, type WorkerModelStatus } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { GenerateCall, InferenceDriver } from '../drivers/inference-driver';
import type { AnthropicModelConfig, OpenAiModelConfig } from '../registry/models-config.schema';
import { rawCompletionRefused } from './remote-prompt';

type RemoteModelConfig = OpenAiModelConfig | AnthropicModelConfig;

/** Remote endpoints have no sequences; this is what they announce as free capacity. */
const REMOTE_PARALLEL = 64;

/**
 * What every remote provider's driver shares: its models come from the config and are always
 * loaded; a request names one of them and asks for a chat reply; a 400 whose body says the prompt
 * is too long is a context error. A provider's driver adds the wire format (`generate`).
 */
export abstract class RemoteDriver<M extends RemoteModelConfig> implements InferenceDriver {
  protected constructor(
    private readonly provider: M['provider'],
    /** How this provider words a prompt over the model's context in a 400's body. */
    private readonly contextTooLong: RegExp,
    protected readonly models: readonly M[],
    protected readonly apiKeys: Readonly<Record<string, string>>,
    protected readonly log: Logger,
  ) {}

  async listModels(): Promise<ModelInfo[]> {
    return this.models.map((m) => ({ id: m.id, provider: this.provider, contextSize: m.contextSize, ...(m.roles.length ? { roles: m.roles } : {}) }));
  }

  async status(): Promise<WorkerModelStatus[]> {
    return (await this.listModels()).map((m) => ({ ...m, loaded: true, freeSequences: REMOTE_PARALLEL, queued: 0, maxQueue: 0, cachedSessions: [] }));
  }

  abstract generate(modelId: string, call: GenerateCall): Promise<GenerateResult>;

  async dispose(): Promise<void> {
    this.log.debug(`${this.provider} driver closed`);
  }

  /** The configured model a request names; remote models serve chat only. */
  protected modelFor(modelId: string, request: GenerateRequest): M {
    const model = this.models.find((m) => m.id === modelId);
    if (!model) throw new AppError(ErrorCode.UnknownModel, `Unknown model "${modelId}"`, { model: modelId });
    if (request.completion) throw rawCompletionRefused(modelId);
    return model;
  }

  /** For `postForEvents`: a refused request that says the prompt is too long, as that error. */
  protected contextError(model: M): (status: number, body: string) => AppError | undefined {
    return (status, body) => {
      if (status !== 400 || !this.contextTooLong.test(body)) return undefined;
      return new AppError(ErrorCode.ContextLengthExceeded, `The prompt does not fit model "${model.id}": ${body.slice(0, 300)}`, {
        contextSize: model.contextSize,
      });
    };
  }
}
