import { Global, Module } from '@nestjs/common';
import { UsersRepository } from '../users/users.repository';
import { AdminAudit } from './admin-audit';
import { AdminGuard } from './admin.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { BootstrapTokensRepository } from './bootstrap-tokens.repository';
import { UserAuthGuard } from './user-auth.guard';

/** Guards are used by every feature module's controllers, hence global. */
@Global()
@Module({
  providers: [ApiKeysRepository, UsersRepository, BootstrapTokensRepository, UserAuthGuard, AdminGuard, AdminAudit],
  exports: [ApiKeysRepository, UsersRepository, BootstrapTokensRepository, UserAuthGuard, AdminGuard, AdminAudit],
})
export class AuthModule {}
