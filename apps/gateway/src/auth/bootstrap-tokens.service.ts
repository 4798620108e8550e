import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import { type AdminActor } from './admin-actor';
import { AdminAudit } from './admin-audit';
import { BootstrapTokensRepository } from './bootstrap-tokens.repository';
import { generateBootstrapToken, hashApiKey } from './key-hash';

export interface BootstrapTokenView {
  /** `env`: WEFT_ADMIN_TOKEN; `rotated`: the token the last rotation returned; `off`: none. */
  state: 'env' | 'rotated' | 'off';
  changedAt: string | null;
  enabledAdmins: number;
}

/** Rotating and turning off the bootstrap admin token, both audited. */
@Injectable()
export class BootstrapTokensService {
  constructor(
    private readonly tokens: BootstrapTokensRepository,
    private readonly audit: AdminAudit,
  ) {}

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

  /** Only admin users' keys are admin credentials from now on; refused while no enabled admin user exists. */
  async turnOff(actor: AdminActor): Promise<BootstrapTokenView> {
    const previous = (await this.tokens.state()).mode;
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
}
