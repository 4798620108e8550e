import { Controller, Get, Param, UseGuards } from '@nestjs/common';
import { workspaceIdSchema } from '@weft/contracts';
import { RpcChainLoader } from '../chains/chain-loader';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { WorkspacesService } from '../workspaces/workspaces.service';

/** A workspace's chains without a session: listing them (`weft chain --list`) creates nothing. */
@Controller('v1/workspaces')
@UseGuards(UserAuthGuard)
export class WorkspaceChainsController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly chains: RpcChainLoader,
  ) {}

  @Get(':id/chains')
  async list(@CurrentPrincipal() p: Principal, @Param('id', new ZodValidationPipe(workspaceIdSchema)) id: string) {
    await this.workspaces.describe(p.userId, id); // another user's workspace is a 404
    return { chains: await this.chains.list(id) };
  }
}
