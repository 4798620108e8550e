import { Injectable } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import { ApiKeysRepository } from '../auth/api-keys.repository';
import { generateApiKey, hashApiKey } from '../auth/key-hash';
import { newId } from '../common/ids';
import type { CreateUserBody } from './users.schemas';
import { UsersRepository } from './users.repository';

@Injectable()
export class UsersService {
  constructor(
    private readonly users: UsersRepository,
    private readonly apiKeys: ApiKeysRepository,
  ) {}

  async create(body: CreateUserBody): Promise<{ id: string; name: string }> {
    const user = { id: newId('usr'), name: body.name, createdAt: new Date().toISOString() };
    await this.users.create(user);
    return { id: user.id, name: user.name };
  }

  /** The key is returned here, once; only its hash is kept. */
  async createKey(userId: string): Promise<{ id: string; key: string }> {
    if (!(await this.users.exists(userId))) throw new AppError(ErrorCode.NotFound, `User ${userId} not found`);
    const key = generateApiKey();
    const keyId = newId('key');
    await this.apiKeys.save(hashApiKey(key), { keyId, userId }, new Date().toISOString());
    return { id: keyId, key };
  }

  async me(userId: string): Promise<{ id: string; name: string }> {
    const user = await this.users.find(userId);
    if (!user) throw new AppError(ErrorCode.Unauthorized, 'Invalid API key');
    return { id: user.id, name: user.name };
  }
}
