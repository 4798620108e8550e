import { Controller } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import { Route } from '../common/api-route.decorator';
import { SandboxSessionsClient } from './sandbox-sessions.client';

/** `weft setup`'s sandbox check: a throwaway container runs `true`. */
@Controller()
export class SandboxCheckController {
  constructor(private readonly sandbox: SandboxSessionsClient) {}

  @Route(apiRoutes.sandboxCheck)
  check() {
    return this.sandbox.check();
  }
}
