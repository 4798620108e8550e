import { Inject, Injectable, type OnApplicationBootstrap } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import { AppError, ErrorCode } from '@weft/contracts';
import { type AdminActor } from './admin-actor';
import { AdminAudit } from './admin-audit';
import { BootstrapTokensRepository } from './bootstrap-tokens.repository';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { LOGGER } from '../infra/tokens';
import { generateBootstrapToken, hashApiKey } from './key-hash';
import { OIDC_SETTINGS, type OidcSettings } from './oidc/oidc-settings';
import { SsoProfiles } from './oidc/sso-profiles';

export interface BootstrapTokenView {
  /** `env`: WEFT_ADMIN_TOKEN; `rotated`: the token the last rotation returned; `off`: none. */
  state: 'env' | 'rotated' | 'off';
  changedAt: string | null;
  enabledAdmins: number;
}

/**
 * Rotating and turning off the bootstrap admin token, both audited; and the way back when every
 * admin is locked out: WEFT_ADMIN_TOKEN_RESTORE=true puts WEFT_ADMIN_TOKEN back in effect at start.
 */
@Injectable()
export class BootstrapTokensService implements OnApplicationBootstrap {
  constructor(
    private readonly tokens: BootstrapTokensRepository,
    private readonly audit: AdminAudit,
    private readonly ssoProfiles: SsoProfiles,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
    @Inject(OIDC_SETTINGS) private readonly oidc: OidcSettings | undefined,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.config.WEFT_ADMIN_TOKEN_RESTORE) return;
    const previous = (await this.tokens.state()).mode;
    if (previous === 'env') return;
    await this.tokens.restoreEnvToken();
    await this.audit.record({ kind: 'bootstrap' }, 'bootstrap-token.restored', undefined, { previous, via: 'WEFT_ADMIN_TOKEN_RESTORE' });
    this.logger.warn({ previous }, 'WEFT_ADMIN_TOKEN_RESTORE: WEFT_ADMIN_TOKEN works again; unset WEFT_ADMIN_TOKEN_RESTORE once an admin is back in');
  }

  async view(): Promise<BootstrapTokenView> {
    const state = await this.tokens.state();
    return { state: state.mode, changedAt: state.mode === 'env' ? null : state.changedAt, enabledAdmins: await this.tokens.enabledAdmins() };
  }

  /**
   * A new random bootstrap token, returned this once and kept only as its hash; the one in effect
   * before (WEFT_ADMIN_TOKEN or an earlier rotation) is refused from the next request on. From
   * `off`, this turns the bootstrap token back on.
   */
  async rotate(actor: AdminActor): Promise<BootstrapTokenView & { token: string }> {
    const previous = (await this.tokens.state()).mode;
    const token = generateBootstrapToken();
    await this.tokens.rotate(hashApiKey(token), new Date().toISOString());
    await this.audit.record(actor, 'bootstrap-token.rotated', undefined, { previous });
    return { token, ...(await this.view()) };
  }

  /**
   * Only admin users' keys (and their browser sessions) are admin credentials from now on; refused
   * while no enabled admin user exists, and, with sign-in through an identity provider on, while
   * no enabled admin has signed in through it (an admin made in Weft alone could lose their key).
   */
  async turnOff(actor: AdminActor): Promise<BootstrapTokenView> {
    const previous = (await this.tokens.state()).mode;
    if (this.oidc && !(await this.anAdminSignedInThroughProvider())) {
      throw new AppError(
        ErrorCode.LastAdmin,
        `Refusing to turn the bootstrap token off: no enabled admin has signed in through the identity provider (${this.oidc.issuer.href}) yet, so a lost key would lock everyone out. ` +
          `Sign in on the web page as an admin (a member of ${this.oidc.adminGroups.length > 0 ? this.oidc.adminGroups.join(', ') : 'a group in WEFT_OIDC_ADMIN_GROUPS, or a user an admin made admin'}) first`,
      );
    }
    if ((await this.tokens.turnOff(new Date().toISOString())) === 'no-admin') {
      throw new AppError(
        ErrorCode.LastAdmin,
        'Refusing to turn the bootstrap token off: no enabled admin user exists, so no one could administer this gateway. ' +
          'Make one first (POST /v1/admin/users {"name": …, "role": "admin"}, or PATCH a user\'s role) and give them a key',
      );
    }
    await this.audit.record(actor, 'bootstrap-token.turned-off', undefined, { previous });
    return this.view();
  }

  private async anAdminSignedInThroughProvider(): Promise<boolean> {
    for (const userId of await this.tokens.enabledAdminIds()) {
      if (await this.ssoProfiles.signedIn(userId)) return true;
    }
    return false;
  }
}
