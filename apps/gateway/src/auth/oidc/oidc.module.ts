import { Module } from '@nestjs/common';
import { GATEWAY_CONFIG, type GatewaySettings } from '../../config';
import { DeviceSignInsRepository } from './device-sign-ins.repository';
import { ModelAccess } from './model-access';
import { OidcController } from './oidc.controller';
import { OidcCliController } from './oidc-cli.controller';
import { OidcCliSignIn } from './oidc-cli-sign-in';
import { OwnKeys } from './own-keys';
import { OidcDeviceSignIn } from './oidc-device-sign-in';
import { OidcProviderClient } from './oidc-provider-client';
import { OIDC_SETTINGS, oidcSettingsOf } from './oidc-settings';
import { OidcSignIn } from './oidc-sign-in';
import { OidcUsers } from './oidc-users';
import { PendingSignInsRepository } from './pending-sign-ins.repository';
import { SsoProfiles } from './sso-profiles';
import { WebSessionAuth } from './web-session-auth';
import { WebSessionKeeper } from './web-session-keeper';
import { WebSessionRefresh } from './web-session-refresh';
import { WebSessionsRepository } from './web-sessions.repository';

/** Sign-in through an OpenID Connect provider, and the browser sessions it opens (docs/sso.md). */
@Module({
  controllers: [OidcController, OidcCliController],
  providers: [
    { provide: OIDC_SETTINGS, inject: [GATEWAY_CONFIG], useFactory: (config: GatewaySettings) => oidcSettingsOf(config) },
    OidcProviderClient,
    OidcSignIn,
    OidcDeviceSignIn,
    DeviceSignInsRepository,
    OidcUsers,
    PendingSignInsRepository,
    WebSessionsRepository,
    WebSessionAuth,
    ModelAccess,
    SsoProfiles,
    WebSessionRefresh,
    WebSessionKeeper,
    OidcCliSignIn,
    OwnKeys,
  ],
  exports: [WebSessionAuth, WebSessionsRepository, ModelAccess, SsoProfiles, OidcUsers, OIDC_SETTINGS],
})
export class OidcModule {}
