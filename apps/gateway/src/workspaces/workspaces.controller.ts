import { Controller, Get, HttpCode, Param, Post, Req, Res, UseGuards } from '@nestjs/common';
import { workspaceIdSchema } from '@weft/contracts';
import type { Request, Response } from 'express';
import { CurrentPrincipal, type Principal } from '../auth/principal';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { ZodValidationPipe } from '../common/zod-validation.pipe';
import { parseWorkspaceUpload } from './workspace-upload';
import { sendArchive, sendPatch, sendReadPath, wildcardPath } from './workspace-responses';
import { WorkspacesService } from './workspaces.service';

const workspaceId = new ZodValidationPipe(workspaceIdSchema);

@Controller('v1/workspaces')
@UseGuards(UserAuthGuard)
export class WorkspacesController {
  constructor(private readonly workspaces: WorkspacesService) {}

  @Post()
  @HttpCode(201)
  create(@CurrentPrincipal() principal: Principal, @Req() req: Request) {
    return this.workspaces.create(principal.userId, parseWorkspaceUpload(req.headers['content-type'], req.body));
  }

  @Get()
  list(@CurrentPrincipal() principal: Principal) {
    return this.workspaces.list(principal.userId);
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
