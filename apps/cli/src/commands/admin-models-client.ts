import { type AdminModel, type ApiCaller, type ModelSettings, type PullLine, type PullModelBody, apiRoutes, pullLineSchema } from '@weft/contracts';
import { ApiError, ProtocolError } from '../errors';

/** A pull that hears nothing from the gateway for this long is given up (the worker sends progress twice a second). */
export const PULL_IDLE_MS = 150_000;

type Guard = <T>(request: () => Promise<T>) => Promise<T>;

/** The model registry's admin routes (`weft admin models`, docs/models.md). */
export class ModelsAdminClient {
  constructor(
    private readonly api: ApiCaller,
    private readonly guard: Guard,
  ) {}

  async list(): Promise<AdminModel[]> {
    return (await this.guard(() => this.api.json(apiRoutes.adminModels, {}))).models;
  }

  set(id: string, settings: ModelSettings): Promise<AdminModel> {
    return this.guard(() => this.api.json(apiRoutes.setModel, { params: { id }, body: settings }));
  }

  remove(id: string, keepFile: boolean): Promise<{ id: string; fileRemoved: boolean }> {
    return this.guard(() => this.api.json(apiRoutes.removeModel, { params: { id }, query: keepFile ? { keepFile: 'true' } : {} }));
  }

  /**
   * Pulls a model, calling `onLine` with each progress line; resolves with the registered model,
   * or throws the gateway's error (from the status, or from the stream's `error` line).
   */
  async pull(body: PullModelBody, onLine: (line: PullLine) => void): Promise<AdminModel> {
    const idle = new AbortController();
    let timer = setTimeout(() => idle.abort(), PULL_IDLE_MS);
    try {
      const response = await this.guard(() => this.api.send(apiRoutes.pullModel, { body, signal: idle.signal }));
      if (!response.body) throw new ProtocolError('the gateway sent an empty pull answer');
      const decoder = new TextDecoder();
      let buffered = '';
      for await (const chunk of response.body) {
        clearTimeout(timer);
        timer = setTimeout(() => idle.abort(), PULL_IDLE_MS);
        buffered += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const text = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (!text.trim()) continue;
          const parsed = pullLineSchema.safeParse(JSON.parse(text));
          if (!parsed.success) throw new ProtocolError(`unexpected pull progress from the gateway: ${text.slice(0, 200)}`);
          const line = parsed.data;
          if (line.type === 'error') throw new ApiError(200, line.error.code, line.error.message, line.error.details);
          onLine(line);
          if (line.type === 'done') return line.model;
        }
      }
      throw new ProtocolError('the pull ended without a result: the gateway or its inference worker stopped (pull again to resume)');
    } catch (error) {
      if (idle.signal.aborted) throw new ProtocolError(`no progress from the gateway for ${PULL_IDLE_MS / 1000} s; pull again to resume`);
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
}
