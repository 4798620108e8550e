import { Controller, Get, UseGuards } from '@nestjs/common';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { SandboxSessionsClient } from './sandbox-sessions.client';

/** The images a session may run its commands in, and the default. */
@Controller('v1/sandbox/images')
@UseGuards(UserAuthGuard)
export class SandboxImagesController {
  constructor(private readonly sandbox: SandboxSessionsClient) {}

  @Get()
  list() {
    return this.sandbox.images();
  }
}
