import { Body, Controller, Inject } from '@nestjs/common';
import { AppError, ErrorCode, apiRoutes, type expireWorkspacesBodySchema } from '@weft/contracts';
import type { z } from 'zod';
import { type AdminActor, CurrentAdmin } from '../auth/admin-actor';
import { AdminAudit } from '../auth/admin-audit';
import { Route } from '../common/api-route.decorator';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { WorkspaceExpiry } from './workspace-expiry.service';

/** Runs the idle-workspace sweep now, or previews it (`dryRun`), with the server's setting or another. */
@Controller()
export class WorkspaceExpiryController {
  constructor(
    private readonly expiry: WorkspaceExpiry,
    private readonly audit: AdminAudit,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewaySettings, 'WORKSPACE_IDLE_DAYS'>,
  ) {}

  @Route(apiRoutes.expireWorkspaces)
  async expire(@CurrentAdmin() actor: AdminActor, @Body() body: z.infer<typeof expireWorkspacesBodySchema>) {
    const idleDays = body.idleDays ?? this.config.WORKSPACE_IDLE_DAYS;
    if (idleDays <= 0) {
      throw new AppError(ErrorCode.ValidationFailed, 'Workspace expiry is off on this server (WORKSPACE_IDLE_DAYS is 0): pass {"idleDays": <days>}');
    }
    const report = await this.expiry.expire(idleDays, body.dryRun);
    if (!body.dryRun) await this.audit.record(actor, 'workspaces.expired', undefined, { idleDays, workspaces: report.expired.map((w) => w.id) });
    return report;
  }
}
