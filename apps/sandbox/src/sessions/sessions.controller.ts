import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { Routes, type SandboxImages } from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import type { z } from 'zod';
import { ImageCatalogue } from '../images/image-catalogue';
import { SessionContainers } from './session-containers';

type ReleaseRequest = z.infer<(typeof Routes)['sandboxReleaseSession']['request']>;

@Controller()
export class SessionsController {
  constructor(
    private readonly containers: SessionContainers,
    private readonly catalogue: ImageCatalogue,
  ) {}

  @MessagePattern(Routes.sandboxReleaseSession.subject)
  async release(@Payload(new ZodPayloadPipe(Routes.sandboxReleaseSession.request)) request: ReleaseRequest): Promise<{ removed: number }> {
    return { removed: await this.containers.release(request.sessionId) };
  }

  @MessagePattern(Routes.sandboxImages.subject)
  images(): SandboxImages {
    return this.catalogue.list();
  }
}
