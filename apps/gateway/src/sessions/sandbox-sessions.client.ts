import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode, Routes, type SandboxImages } from '@weft/contracts';
import { RpcClient } from '@weft/messaging';

/** Asks the sandbox workers for their image catalogue, and to remove a deleted session's container. */
@Injectable()
export class SandboxSessionsClient {
  constructor(private readonly rpc: RpcClient) {}

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

  async release(sessionId: string): Promise<number> {
    return (await this.rpc.request(Routes.sandboxReleaseSession, { sessionId }, { timeoutMs: 30_000 })).removed;
  }
}
