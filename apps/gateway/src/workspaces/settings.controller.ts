import { Controller, Get, Inject, UseGuards } from '@nestjs/common';
import type { serverSettingsSchema } from '@weft/contracts';
import type { z } from 'zod';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';

/** What this server lets a client offer (the web page shows "Import from git" only where it works). */
@Controller('v1/settings')
@UseGuards(UserAuthGuard)
export class SettingsController {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings) {}

  @Get()
  get(): z.infer<typeof serverSettingsSchema> {
    return { gitImportHosts: this.config.WORKSPACE_GIT_ALLOWED_HOSTS, workspaceUploadMaxBytes: this.config.WORKSPACE_UPLOAD_MAX_BYTES };
  }
}
