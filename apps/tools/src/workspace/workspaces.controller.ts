import { Controller, Inject } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type ReadPathResult, Routes } from '@weft/contracts';
import { ZodPayloadPipe } from '@weft/messaging';
import type { z } from 'zod';
import { WorkspaceService } from './workspace.service';

type Request<K extends keyof typeof Routes> = z.infer<(typeof Routes)[K]['request']>;

@Controller()
export class WorkspacesController {
  constructor(@Inject(WorkspaceService) private readonly workspaces: WorkspaceService) {}

  @MessagePattern(Routes.toolsCreateWorkspace.subject)
  create(@Payload(new ZodPayloadPipe(Routes.toolsCreateWorkspace.request)) request: Request<'toolsCreateWorkspace'>) {
    return this.workspaces.create(request);
  }

  @MessagePattern(Routes.toolsReadPath.subject)
  readPath(@Payload(new ZodPayloadPipe(Routes.toolsReadPath.request)) request: Request<'toolsReadPath'>): Promise<ReadPathResult> {
    return this.workspaces.readPath(request.workspaceId, request.path);
  }

  @MessagePattern(Routes.toolsExportPatch.subject)
  exportPatch(@Payload(new ZodPayloadPipe(Routes.toolsExportPatch.request)) request: Request<'toolsExportPatch'>) {
    return this.workspaces.exportPatch(request.workspaceId);
  }

  @MessagePattern(Routes.toolsWorkspaceUsage.subject)
  async usage(@Payload(new ZodPayloadPipe(Routes.toolsWorkspaceUsage.request)) request: Request<'toolsWorkspaceUsage'>) {
    return { workspaces: await this.workspaces.usage(request.workspaceIds) };
  }

  @MessagePattern(Routes.toolsDeleteWorkspace.subject)
  async delete(@Payload(new ZodPayloadPipe(Routes.toolsDeleteWorkspace.request)) request: Request<'toolsDeleteWorkspace'>) {
    await this.workspaces.delete(request.workspaceId);
    return { removed: true as const };
  }

  @MessagePattern(Routes.toolsWorkspaceManifest.subject)
  manifest(@Payload(new ZodPayloadPipe(Routes.toolsWorkspaceManifest.request)) request: Request<'toolsWorkspaceManifest'>) {
    return this.workspaces.manifest(request.workspaceId);
  }

  @MessagePattern(Routes.toolsSyncWorkspace.subject)
  sync(@Payload(new ZodPayloadPipe(Routes.toolsSyncWorkspace.request)) request: Request<'toolsSyncWorkspace'>) {
    return this.workspaces.sync(request);
  }

  @MessagePattern(Routes.toolsExportWorkspace.subject)
  export(@Payload(new ZodPayloadPipe(Routes.toolsExportWorkspace.request)) request: Request<'toolsExportWorkspace'>) {
    return this.workspaces.export(request.workspaceId);
  }
}
