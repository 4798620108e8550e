import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req, Res, UseGuards } from '@nestjs/common';
import { type WorkspaceSyncBody, createWorkspaceQuerySchema, renameWorkspaceBodySchema, workspaceIdSchema, workspaceSyncBodySchema } from '@weft/contracts';
import type { Request, Response } from 'express';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { parseWorkspaceUpload } from './workspace-upload';
import { sendArchive, sendPatch, sendReadPath, wildcardPath } from './workspace-responses';
import { WorkspaceSyncService } from './workspace-sync.service';
import { WorkspacesService } from './workspaces.service';

const workspaceId = new ZodValidationPipe(workspaceIdSchema);
const createQuery = new ZodValidationPipe(createWorkspaceQuerySchema);
const renameBody = new ZodValidationPipe(renameWorkspaceBodySchema);
const syncBody = new ZodValidationPipe(workspaceSyncBodySchema);

@Controller('v1/workspaces')
@UseGuards(UserAuthGuard)
export class WorkspacesController {
  constructor(
    private readonly workspaces: WorkspacesService,
    private readonly syncing: WorkspaceSyncService,
  ) {}

  @Post()
  @HttpCode(201)
  create(@CurrentPrincipal() principal: Principal, @Req() req: Request, @Query(createQuery) query: { name?: string }) {
    return this.workspaces.create(principal.userId, parseWorkspaceUpload(req.headers['content-type'], req.body), query.name);
  }

  @Get()
  list(@CurrentPrincipal() principal: Principal) {
    return this.workspaces.list(principal.userId);
  }

  @Get(':id')
  get(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string) {
    return this.workspaces.describe(principal.userId, id);
  }

  @Patch(':id')
  rename(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string, @Body(renameBody) body: { name: string }) {
    return this.workspaces.rename(principal.userId, id, body.name);
  }

  @Delete(':id')
  @HttpCode(204)
  async delete(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string): Promise<void> {
    await this.workspaces.delete(principal.userId, id);
  }

  @Get(':id/manifest')
  manifest(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string) {
    return this.syncing.manifest(principal.userId, id);
  }

  @Post(':id/sync')
  @HttpCode(200)
  sync(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string, @Body(syncBody) body: WorkspaceSyncBody) {
    return this.syncing.sync(principal.userId, id, body);
  }

  @Get(':id/files{/*path}')
  async files(
    @CurrentPrincipal() principal: Principal,
    @Param('id', workspaceId) id: string,
    @Param('path') raw: string | string[] | undefined,
    @Res() res: Response,
  ) {
    const path = wildcardPath(raw);
    sendReadPath(res, path, await this.workspaces.readPath(principal.userId, id, path));
  }

  @Get(':id/archive')
  async archive(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string, @Res() res: Response) {
    sendArchive(res, id, await this.workspaces.exportArchive(principal.userId, id));
  }

  @Get(':id/patch')
  async patch(@CurrentPrincipal() principal: Principal, @Param('id', workspaceId) id: string, @Res() res: Response) {
    sendPatch(res, id, await this.workspaces.exportPatch(principal.userId, id));
  }
}
