import { Global, Module } from '@nestjs/common';
import { UsersRepository } from '../users/users.repository';
import { AdminAudit } from './admin-audit';
import { AdminGuard } from './admin.guard';
import { ApiKeysRepository } from './api-keys.repository';
import { BootstrapTokensRepository } from './bootstrap-tokens.repository';
import { CredentialWatch } from './credential-watch';
import { OidcModule } from './oidc/oidc.module';
import { UserAuthGuard } from './user-auth.guard';

/** Guards are used by every feature module's controllers, hence global. */
@Global()
@Module({
  imports: [OidcModule],
  providers: [CredentialWatch, ApiKeysRepository, UsersRepository, BootstrapTokensRepository, UserAuthGuard, AdminGuard, AdminAudit],
  exports: [CredentialWatch, ApiKeysRepository, UsersRepository, BootstrapTokensRepository, UserAuthGuard, AdminGuard, AdminAudit, OidcModule],
})
export class AuthModule {}
