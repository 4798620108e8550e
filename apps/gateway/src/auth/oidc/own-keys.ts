import { Injectable } from '@nestjs/common';
import { newId } from '../../common/ids';
import type { User } from '../../users/users.repository';
import { AdminAudit } from '../admin-audit';
import { ApiKeysRepository } from '../api-keys.repository';
import { generateApiKey, hashApiKey } from '../key-hash';

/** How much of a key a listing shows, as for every other key: `weft_` and seven characters. */
const SHOWN_PREFIX = 12;

/** The answer `weft login` gets once the user signed in: their new key, shown this once. */
export interface MintedKey {
  key: string;
  keyId: string;
  user: { id: string; name: string; role: User['role'] };
}

/** Mints the API key `weft login` keeps after a sign-in through the provider (device code or loopback), audited as the user's own. */
@Injectable()
export class OwnKeys {
  constructor(
    private readonly apiKeys: ApiKeysRepository,
    private readonly audit: AdminAudit,
  ) {}

  async mint(user: User, keyName: string, via: 'oidc-device' | 'oidc-loopback'): Promise<MintedKey> {
    const key = generateApiKey();
    const stored = { keyId: newId('key'), userId: user.id, name: keyName, prefix: key.slice(0, SHOWN_PREFIX), createdAt: new Date().toISOString(), expiresAt: '' };
    await this.apiKeys.save(hashApiKey(key), stored);
    await this.audit.record({ kind: 'user', userId: user.id, keyId: stored.keyId }, 'key.created', user.id, { keyId: stored.keyId, name: keyName, prefix: stored.prefix, expiresAt: null, via });
    return { key, keyId: stored.keyId, user: { id: user.id, name: user.name, role: user.role } };
  }
}
