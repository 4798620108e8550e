import { Controller, HttpCode, Post, UseGuards } from '@nestjs/common';
import { UserAuthGuard } from '../auth/user-auth.guard';
import { SandboxSessionsClient } from './sandbox-sessions.client';

/** `weft setup`'s sandbox check: a throwaway container runs `true`. */
@Controller('v1/sandbox/check')
@UseGuards(UserAuthGuard)
export class SandboxCheckController {
  constructor(private readonly sandbox: SandboxSessionsClient) {}

  @Post()
  @HttpCode(200)
  check() {
    return this.sandbox.check();
  }
}
