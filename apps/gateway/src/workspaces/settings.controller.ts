import { Controller, Inject } from '@nestjs/common';
import { apiRoutes, type serverSettingsSchema } from '@weft/contracts';
import type { z } from 'zod';
import { Route } from '../common/api-route.decorator';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';

/** What this server lets a client offer (the web page shows "Import from git" only where it works). */
@Controller()
export class SettingsController {
  constructor(@Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings) {}

  @Route(apiRoutes.settings)
  get(): z.infer<typeof serverSettingsSchema> {
    return { gitImportHosts: this.config.WORKSPACE_GIT_ALLOWED_HOSTS, workspaceUploadMaxBytes: this.config.WORKSPACE_UPLOAD_MAX_BYTES };
  }
}
