import { Global, Module } from '@nestjs/common';
import { UsersRepository } from '../users/users.repository';
import { AdminAudit } from './admin-audit';
import { AdminGuard } from './admin.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { UserAuthGuard } from './user-auth.guard';

/** Guards are used by every feature module's controllers, hence global. */
@Global()
@Module({
  providers: [ApiKeysRepository, UsersRepository, UserAuthGuard, AdminGuard, AdminAudit],
  exports: [ApiKeysRepository, UsersRepository, UserAuthGuard, AdminGuard, AdminAudit],
})
export class AuthModule {}
