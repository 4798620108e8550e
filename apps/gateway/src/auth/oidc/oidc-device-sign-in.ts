import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode, type DeviceSignInPoll, type DeviceSignInStart } from '@weft/contracts';
import { DeviceSignInsRepository } from './device-sign-ins.repository';
import { admit } from './oidc-admission';
import { OidcProviderClient } from './oidc-provider-client';
import { OidcUsers } from './oidc-users';
import { OwnKeys } from './own-keys';

/** What the CLI waits between polls when the provider names no interval (RFC 8628: 5 s). */
const DEFAULT_INTERVAL_SECONDS = 5;

/**
 * `weft login` through the identity provider: the gateway runs the device authorization grant
 * with its own client, so the CLI needs no client of its own; once the user confirms, the ID token
 * is verified and admitted like a browser's, and the CLI gets an API key of the user's own.
 */
@Injectable()
export class OidcDeviceSignIn {
  constructor(
    private readonly provider: OidcProviderClient,
    private readonly devices: DeviceSignInsRepository,
    private readonly users: OidcUsers,
    private readonly ownKeys: OwnKeys,
  ) {}

  async start(): Promise<DeviceSignInStart> {
    const grant = await this.provider.startDevice();
    const handle = randomBytes(32).toString('base64url');
    await this.devices.save(handle, grant.device_code, grant.expires_in);
    return {
      handle,
      userCode: grant.user_code,
      verificationUri: grant.verification_uri,
      verificationUriComplete: grant.verification_uri_complete ?? null,
      expiresIn: grant.expires_in,
      interval: grant.interval ?? DEFAULT_INTERVAL_SECONDS,
    };
  }

  async poll(handle: string, keyName: string): Promise<DeviceSignInPoll> {
    const deviceCode = await this.devices.find(handle);
    if (!deviceCode) throw new AppError(ErrorCode.Unauthorized, 'This device sign-in has expired or was already used; run weft login again');
    const outcome = await this.provider.pollDevice(deviceCode);
    if (outcome === 'pending' || outcome === 'slow_down') return { status: 'pending', slowDown: outcome === 'slow_down' };
    if (!(await this.devices.finish(handle))) throw new AppError(ErrorCode.Unauthorized, 'This device sign-in was already used; run weft login again');
    const admission = admit(outcome, this.provider.required());
    if (!admission.admitted) throw new AppError(ErrorCode.Forbidden, admission.reason);
    const user = await this.users.signIn(admission.identity);
    return { status: 'done', ...(await this.ownKeys.mint(user, keyName, 'oidc-device')) };
  }
}
