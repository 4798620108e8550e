import { Controller } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import { Route } from '../common/api-route.decorator';
import { SandboxSessionsClient } from './sandbox-sessions.client';

/** The images a session may run its commands in, and the default. */
@Controller()
export class SandboxImagesController {
  constructor(private readonly sandbox: SandboxSessionsClient) {}

  @Route(apiRoutes.sandboxImages)
  list() {
    return this.sandbox.images();
  }
}
