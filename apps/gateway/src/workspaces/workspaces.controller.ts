import { Body, Controller, Param, Query, Req, Res } from '@nestjs/common';
import { type WorkspaceSyncBody, apiRoutes, workspaceIdSchema } from '@weft/contracts';
import type { Request, Response } from 'express';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { Route } from '../common/api-route.decorator';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { parseWorkspaceUpload } from './workspace-upload';
import { sendArchive, sendPatch, sendReadPath, wildcardPath } from './workspace-responses';
import { WorkspaceSyncService } from './workspace-sync.service';
import { WorkspacesService } from './workspaces.service';

const workspaceId = new ZodValidationPipe(workspaceIdSchema);

@Controller()
export class WorkspacesController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly syncing: WorkspaceSyncService,
  ) {}

  @Route(apiRoutes.createWorkspace)
  create(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Query() query: { name?: string }) {
    return this.workspaces.create(principal.userId, parseWorkspaceUpload(req.headers['content-type'], req.body), query.name);
  }

  @Route(apiRoutes.workspaces)
  list(@CurrentPrincipal() principal: Principal) {
    return this.workspaces.list(principal.userId);
  }

  @Route(apiRoutes.workspace)
  get(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string) {
    return this.workspaces.describe(principal.userId, id);
  }

  @Route(apiRoutes.renameWorkspace)
  rename(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string, @Body() body: { name: string }) {
    return this.workspaces.rename(principal.userId, id, body.name);
  }

  @Route(apiRoutes.deleteWorkspace)
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string): Promise<void> {
    await this.workspaces.delete(principal.userId, id);
  }

  @Route(apiRoutes.workspaceManifest)
  manifest(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string) {
    return this.syncing.manifest(principal.userId, id);
  }

  @Route(apiRoutes.syncWorkspace)
  sync(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string, @Body() body: WorkspaceSyncBody) {
    return this.syncing.sync(principal.userId, id, body);
  }

  @Route(apiRoutes.workspaceFiles)
  async files(
    @CurrentPrincipal() principal: Principal,
    @Param('id', workspaceId) id: string,
    @Param('path') raw: string | string[] | undefined,
    @Res() res: Response,
  ) {
    const path = wildcardPath(raw);
    sendReadPath(res, path, await this.workspaces.readPath(principal.userId, id, path));
  }

  @Route(apiRoutes.workspaceArchive)
  async archive(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string, @Res() res: Response) {
    sendArchive(res, id, await this.workspaces.exportArchive(principal.userId, id));
  }

  @Route(apiRoutes.workspacePatch)
  async patch(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string, @Res() res: Response) {
    sendPatch(res, id, await this.workspaces.exportPatch(principal.userId, id));
  }
}
