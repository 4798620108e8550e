import { Inject, Injectable } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import type { ExecResult } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { CONTAINER_RUNTIME, type ContainerRuntime } from '../docker/container-runtime';
import { LOGGER, SANDBOX_CONFIG } from '../tokens';
import { buildContainerSpec } from './container-spec';
import type { ParsedExecRequest } from './exec-request';
import { WorkspaceLocator } from './workspace-locator';

/** Runs one command or snippet in a throwaway container. */
@Injectable()
export class ExecService {
  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    @Inject(CONTAINER_RUNTIME) private readonly runtime: ContainerRuntime,
    private readonly locator: WorkspaceLocator,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async run(request: ParsedExecRequest): Promise<ExecResult> {
    const timeoutMs = request.timeoutMs ?? this.config.SANDBOX_TIMEOUT_MS;
    const cwd = request.mode === 'command' ? request.cwd : undefined;
    const workspace = request.workspaceId ? await this.locator.locate(request.workspaceId, cwd) : undefined;
    const spec = buildContainerSpec(
      { request, workspaceHostPath: workspace?.hostPath, cwd: workspace?.cwd ?? '', timeoutMs, now: Date.now() },
      this.config,
    );
    const result = await this.runtime.run(spec, {
      stdin: request.mode === 'code' ? request.stdin : undefined,
      timeoutMs,
      outputMaxBytes: this.config.SANDBOX_OUTPUT_MAX_BYTES,
    });
    // Ids and outcome only: commands and output may carry secrets.
    this.logger.info(
      {
        mode: request.mode,
        workspaceId: request.workspaceId,
        exitCode: result.exitCode,
        timedOut: result.timedOut,
        oomKilled: result.oomKilled,
        durationMs: result.durationMs,
      },
      'sandbox run finished',
    );
    return result;
  }
}
