import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode, Routes, type ExecResult, type ResolvedSandboxImage, type SandboxImages } from '@weft/contracts';
import { RpcClient } from '@weft/messaging';

/** How long `true` may take inside the container, and how long the gateway waits for a worker's answer. */
const CHECK_RUN_TIMEOUT_MS = 15_000;
const CHECK_REPLY_TIMEOUT_MS = 30_000;
/** Enough of a failed check's stderr to say why, never a flood. */
const CHECK_STDERR_MAX_CHARS = 500;
/** Reading a few small files of the workspace; a session's view does not wait longer for it. */
const RESOLVE_IMAGE_TIMEOUT_MS = 2_000;

/** What `POST /v1/sandbox/check` answers when a container ran `true`. */
export interface SandboxCheck {
  ok: true;
  durationMs: number;
}

/** Asks the sandbox workers for their image catalogue, to run the setup check, and to remove a deleted session's container. */
@Injectable()
export class SandboxSessionsClient {
  constructor(private readonly rpc: RpcClient) {}

  /**
   * Runs `true` as a snippet: no workspace, no network, nothing counted against the user's
   * sandbox time (like every snippet). It proves that a worker answers and that its engine starts
   * a locked-down container; a worker that is missing answers `TRANSPORT.NO_RESPONDERS`.
   */
  async check(): Promise<SandboxCheck> {
    const request = { mode: 'code', language: 'bash', code: 'true', timeoutMs: CHECK_RUN_TIMEOUT_MS } as const;
    const result = await this.rpc.request(Routes.sandboxExec, request, { timeoutMs: CHECK_REPLY_TIMEOUT_MS });
    if (result.exitCode === 0) return { ok: true, durationMs: Math.round(result.durationMs) };
    const stderr = result.stderr.trim().slice(0, CHECK_STDERR_MAX_CHARS);
    throw new AppError(
      ErrorCode.SandboxUnavailable,
      `The sandbox started a container but \`true\` ${failureOf(result)}${stderr ? `: ${stderr}` : ''}`,
      { exitCode: result.exitCode, timedOut: result.timedOut, oomKilled: result.oomKilled, stderr },
    );
  }

  images(): Promise<SandboxImages> {
    return this.rpc.request(Routes.sandboxImages, {}, { timeoutMs: 10_000 });
  }

  /** A session may only pick an image the admin catalogued; the error lists the ones it may. */
  async assertImage(id: string): Promise<void> {
    const catalogue = await this.images();
    const allowed = catalogue.images.map((image) => image.id);
    if (!allowed.includes(id)) {
      throw new AppError(
        ErrorCode.SandboxImageUnknown,
        `Sandbox image "${id}" is not in this server's catalogue; allowed: ${allowed.join(', ')}`,
        { image: id, allowed },
      );
    }
  }

  /** The image the session's next command would run in, and what chose it (the workspace's files may). */
  resolveImage(workspaceId: string, image: string | null): Promise<ResolvedSandboxImage> {
    return this.rpc.request(
      Routes.sandboxResolveImage,
      { workspaceId, ...(image ? { image } : {}) },
      { timeoutMs: RESOLVE_IMAGE_TIMEOUT_MS },
    );
  }

  async release(sessionId: string): Promise<number> {
    return (await this.rpc.request(Routes.sandboxReleaseSession, { sessionId }, { timeoutMs: 30_000 })).removed;
  }
}

function failureOf(result: ExecResult): string {
  if (result.timedOut) return `did not finish within ${CHECK_RUN_TIMEOUT_MS} ms`;
  if (result.oomKilled) return 'was killed for memory';
  return result.exitCode === null ? 'was killed' : `exited with ${result.exitCode}`;
}
