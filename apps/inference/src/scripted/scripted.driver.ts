import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setImmediate, setTimeout as sleep } from 'node:timers/promises';
import { AppError, ErrorCode, type GenerateResult, type ModelInfo, type WorkerModelStatus } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import type { GenerateCall, InferenceDriver } from '../drivers/inference-driver';
import { SCRIPTED_DEFAULT_CONTEXT, SCRIPTED_PREFIX, scriptSchema, type Script } from './script.schema';
import { continuedChunks, estimateTokens, planTurn } from './script-turn';

const SCRIPT_NAME = /^[A-Za-z0-9._-]+$/;
/** What a scripted model announces as free sequences. */
const SCRIPTED_PARALLEL = 64;

/**
 * Replays `<dir>/<name>.json` as model `scripted/<name>`. The folder is read on every call, so a
 * script dropped in is served at once and every replica gives the same answer.
 */
export class ScriptedDriver implements InferenceDriver {
  readonly continuesReplies = true;
  constructor(
    private readonly dir: string,
    private readonly log: Logger,
  ) {}

  async listModels(): Promise<ModelInfo[]> {
    const models: ModelInfo[] = [];
    for (const name of await this.scriptNames()) {
      const id = SCRIPTED_PREFIX + name;
      try {
        const script = await this.readScript(id, name);
        const roles = script.roles ? { roles: script.roles } : {};
        models.push({ id, provider: 'scripted', contextSize: script.contextSize ?? SCRIPTED_DEFAULT_CONTEXT, ...roles });
      } catch (error) {
        this.log.warn({ model: id, err: error }, 'skipping invalid script');
      }
    }
    return models;
  }

  /** Scripts hold no sequences: every one always has room. */
  async status(): Promise<WorkerModelStatus[]> {
    return (await this.listModels()).map((model) => ({
      ...model,
      loaded: true,
      freeSequences: SCRIPTED_PARALLEL,
      queued: 0,
      maxQueue: 0,
      cachedSessions: [],
    }));
  }

  async generate(modelId: string, { request, onDelta, signal }: GenerateCall): Promise<GenerateResult> {
    const started = performance.now();
    const name = modelId.slice(SCRIPTED_PREFIX.length);
    if (!modelId.startsWith(SCRIPTED_PREFIX) || !(await this.scriptNames()).includes(name)) {
      throw new AppError(ErrorCode.UnknownModel, `Unknown model "${modelId}"`, { model: modelId });
    }
    const plan = planTurn(modelId, await this.readScript(modelId, name), request.messages, request.maxTokens, request.stop);
    const promptTokens = estimateTokens(request.messages);
    let firstTokenAt: number | undefined;
    for (const chunk of continuedChunks(plan.chunks, request.continueFrom)) {
      signal.throwIfAborted();
      // One event-loop turn per chunk, so deltas leave as separate messages, like a real model's.
      if (plan.delayMs > 0) await sleep(plan.delayMs, undefined, { signal }).catch(() => signal.throwIfAborted());
      else await setImmediate();
      firstTokenAt ??= performance.now();
      onDelta(chunk);
    }
    return {
      text: plan.chunks.join(''),
      toolCalls: plan.toolCalls,
      finishReason: plan.finishReason,
      ...(plan.stopSequence !== undefined ? { stopSequence: plan.stopSequence } : {}),
      usage: { promptTokens, completionTokens: plan.chunks.length, cachedTokens: 0, evaluatedTokens: promptTokens },
      timings: {
        timeToFirstTokenMs: firstTokenAt === undefined ? undefined : firstTokenAt - started,
        totalMs: performance.now() - started,
      },
    };
  }

  async dispose(): Promise<void> {}

  private async scriptNames(): Promise<string[]> {
    let files: string[];
    try {
      files = await readdir(this.dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw error;
    }
    return files
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -'.json'.length))
      .filter((name) => SCRIPT_NAME.test(name))
      .sort();
  }

  private async readScript(modelId: string, name: string): Promise<Script> {
    try {
      return scriptSchema.parse(JSON.parse(await readFile(join(this.dir, `${name}.json`), 'utf8')));
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new AppError(ErrorCode.ModelLoadFailed, `Script "${modelId}" is invalid: ${reason}`, { model: modelId }, false, {
        cause: error,
      });
    }
  }
}
