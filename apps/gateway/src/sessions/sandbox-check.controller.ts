import { Controller } from '@nestjs/common';
import { apiRoutes } from '@weft/contracts';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { PackageInstallCheckService } from './package-install-check';
import { SandboxSessionsClient } from './sandbox-sessions.client';

/** `weft setup`'s sandbox check: a throwaway container runs `true`, then npm and pip fetch a package the way a session's commands would. */
@Controller()
export class SandboxCheckController {
  constructor(
    private readonly sandbox: SandboxSessionsClient,
    private readonly packages: PackageInstallCheckService,
  ) {}

  @Route(apiRoutes.sandboxCheck)
  async check(@CurrentPrincipal() principal: Principal) {
    const ran = await this.sandbox.check();
    return { ...ran, packages: await this.packages.check(principal.userId) };
  }
}
