import { Controller, Param } from '@nestjs/common';
import { apiRoutes, workspaceIdSchema } from '@weft/contracts';
import { RpcChainLoader } from '../chains/chain-loader';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { WorkspacesService } from '../workspaces/workspaces.service';

/** A workspace's chains without a session: listing them (`weft chain --list`) creates nothing. */
@Controller()
export class WorkspaceChainsController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly chains: RpcChainLoader,
  ) {}

  @Route(apiRoutes.workspaceChains)
  async list(@CurrentPrincipal() p: Principal, @Param('id', new ZodValidationPipe(workspaceIdSchema)) id: string) {
    await this.workspaces.describe(p.userId, id); // another user's workspace is a 404
    return { chains: await this.chains.list(id) };
  }
}
