import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Routes, type ResolvedSandboxImage, type SandboxImages } from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import type { z } from 'zod';
import { WorkspaceLocator } from '../exec/workspace-locator';
import { ImageCatalogue } from '../images/image-catalogue';
import { SessionContainers } from './session-containers';

type ReleaseRequest = z.infer<(typeof Routes)['sandboxReleaseSession']['request']>;
type ResolveImageRequest = z.infer<(typeof Routes)['sandboxResolveImage']['request']>;

@Controller()
export class SessionsController {
  constructor(
    private readonly containers: SessionContainers,
    private readonly catalogue: ImageCatalogue,
    private readonly locator: WorkspaceLocator,
  ) {}

  @MessagePattern(Routes.sandboxReleaseSession.subject)
  async release(@Payload(new ZodPayloadPipe(Routes.sandboxReleaseSession.request)) request: ReleaseRequest): Promise<{ removed: number }> {
    return { removed: await this.containers.release(request.sessionId) };
  }

  @MessagePattern(Routes.sandboxImages.subject)
  images(): SandboxImages {
    return this.catalogue.list();
  }

  /** What a session's next command in this workspace runs in: the gateway shows it with the session. */
  @MessagePattern(Routes.sandboxResolveImage.subject)
  async resolveImage(@Payload(new ZodPayloadPipe(Routes.sandboxResolveImage.request)) request: ResolveImageRequest): Promise<ResolvedSandboxImage> {
    await this.locator.locate(request.workspaceId);
    return this.catalogue.resolve(request.image, this.locator.localRoot(request.workspaceId));
  }
}
