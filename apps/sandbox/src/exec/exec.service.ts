import { Inject, Injectable } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import { AppError, ErrorCode, type ExecResult } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import {
  CONTAINER_RUNTIME,
  type ContainerRuntime,
  type OutputListener,
  type RunOptions,
  type WarmContainer,
  WarmContainerGoneError,
} from '../docker/container-runtime';
import { SandboxMetrics } from '../metrics/sandbox-metrics';
import { WarmPool } from '../pool/warm-pool';
import { LOGGER, SANDBOX_CONFIG } from '../tokens';
import { buildContainerSpec, commandLine } from './container-spec';
import { ensureProtectedFolder } from './protected-folder';
import { EgressNetwork } from './egress-network';
import type { ParsedExecRequest } from './exec-request';
import { WorkspaceLocator } from './workspace-locator';
import { ImageCatalogue } from '../images/image-catalogue';
import { SessionContainers } from '../sessions/session-containers';

/** What a long run adds to a plain one: a way to stop it, and its output as it comes. */
export interface RunHooks {
  signal?: AbortSignal;
  onOutput?: OutputListener;
}

/**
 * Runs one command or snippet: a session's command in that session's container, a snippet in a
 * warm pooled container when it can, anything else in a cold throwaway one.
 */
@Injectable()
export class ExecService {
  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    @Inject(CONTAINER_RUNTIME) private readonly runtime: ContainerRuntime,
    private readonly locator: WorkspaceLocator,
    private readonly pool: WarmPool,
    private readonly egress: EgressNetwork,
    private readonly catalogue: ImageCatalogue,
    private readonly sessions: SessionContainers,
    @Inject(LOGGER) private readonly logger: Logger,
    @Inject(SandboxMetrics) private readonly metrics: SandboxMetrics,
  ) {}

  async run(request: ParsedExecRequest, hooks: RunHooks = {}): Promise<ExecResult> {
    const argv = commandLine(request);
    if (argv.some((arg) => arg.includes('\0'))) {
      throw new AppError(ErrorCode.ValidationFailed, 'Commands and code cannot contain a NUL byte');
    }
    const session = request.mode === 'command' ? request.session : undefined;
    if (request.network === 'proxy' && !session) {
      throw new AppError(ErrorCode.ValidationFailed, 'The proxy network is for commands of a session (give `session`)');
    }
    const timeoutMs = request.timeoutMs ?? this.config.SANDBOX_TIMEOUT_MS;
    const options: RunOptions = {
      stdin: request.mode === 'code' ? request.stdin : undefined,
      timeoutMs,
      outputMaxBytes: this.config.SANDBOX_OUTPUT_MAX_BYTES,
      ...hooks,
    };
    const kind = hooks.onOutput ? (`long_${request.mode}` as const) : request.mode;
    const { result, warm } = await this.metrics.track(kind, () => this.execute(request, argv, options));
    // Ids and outcome only: commands and output may carry secrets.
    this.logger.info(
      {
        mode: request.mode,
        workspaceId: request.workspaceId,
        sessionId: session?.sessionId,
        network: request.network,
        image: result.image,
        warm,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        oomKilled: result.oomKilled,
        durationMs: result.durationMs,
      },
      'sandbox run finished',
    );
    return result;
  }

  /** In a pooled container, a session's, or a cold one; `warm` when no container had to start. */
  private async execute(request: ParsedExecRequest, argv: string[], options: RunOptions): Promise<{ result: ExecResult; warm: boolean }> {
    // Pooled containers mount nothing and have no network: only such snippets can use one.
    const poolable = request.mode === 'code' && !request.workspaceId && request.network === 'none';
    // Held for the whole run, warm or cold: the pool grows to the most snippets running at once.
    const lease = poolable ? this.pool.lease(options.timeoutMs) : undefined;
    try {
      const warmResult = lease?.container ? await this.runWarm(lease.container, argv, options) : undefined;
      if (warmResult) return { result: warmResult, warm: true };
      const result: ExecResult =
        request.mode === 'command' && request.session
          ? await this.sessions.run({ ...request, session: request.session }, options)
          : await this.runtime.run(await this.coldSpec(request, options.timeoutMs), options);
      return { result, warm: result.reused === true };
    } finally {
      lease?.release();
    }
  }

  /** Undefined when the container died idle: nothing ran, the caller starts cold. */
  private async runWarm(warm: WarmContainer, argv: string[], options: RunOptions) {
    try {
      return await this.runtime.runWarm(warm, argv, options);
    } catch (error) {
      if (error instanceof WarmContainerGoneError) return undefined;
      throw error;
    }
  }

  private async coldSpec(request: ParsedExecRequest, timeoutMs: number) {
    const cwd = request.mode === 'command' ? request.cwd : undefined;
    const workspace = request.workspaceId ? await this.locator.locate(request.workspaceId, cwd) : undefined;
    if (workspace && request.mode === 'command' && request.writable) await ensureProtectedFolder(this.locator.localRoot(request.workspaceId));
    // Commands run in the catalogue's image; snippets in the lean one the pool uses.
    const image =
      request.mode === 'command'
        ? (await this.catalogue.resolve(request.image, this.locator.localRoot(request.workspaceId))).image
        : this.config.SANDBOX_IMAGE;
    const network = request.network === 'egress' ? await this.egress.name() : undefined;
    const spec = buildContainerSpec(
      { request, workspaceHostPath: workspace?.hostPath, cwd: workspace?.cwd ?? '', timeoutMs, now: Date.now() },
      { ...this.config, SANDBOX_IMAGE: image },
    );
    return network ? { ...spec, network } : spec;
  }
}
