import { type DynamicModule, Global, Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { natsServerFrom, RpcClient } from '@weft/messaging';
import type { Logger } from '@weft/logging';
import { Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { NatsConnectionHandle } from './nats.connection';
import { RedisAvailability } from './redis-availability';
import { RedisKeys } from './redis-keys';
import { StoreGate } from './store-gate';
import { LOGGER, REDIS } from './tokens';

/** Closes the shared connections after every module has stopped using them. */
@Injectable()
class ConnectionsCloser implements OnApplicationShutdown {
  constructor(
    @Inject(REDIS) private readonly redis: Redis,
    private readonly nats: NatsConnectionHandle,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.nats.close().catch((err: unknown) => this.logger.warn({ err }, 'closing NATS failed'));
    await this.redis.quit().catch((err: unknown) => this.logger.warn({ err }, 'closing Redis failed'));
  }
}

/** Config, logger, Redis and NATS for every other module. */
@Global()
export class InfraModule {
  static forRoot(config: GatewaySettings, logger: Logger): DynamicModule {
    return {
      module: InfraModule,
      providers: [
        { provide: GATEWAY_CONFIG, useValue: config },
        { provide: LOGGER, useValue: logger },
        { provide: RedisKeys, useValue: new RedisKeys(config.REDIS_KEY_PREFIX) },
        { provide: REDIS, useFactory: () => new Redis(config.REDIS_URL, { lazyConnect: false }) },
        {
          provide: NatsConnectionHandle,
          useFactory: () => NatsConnectionHandle.connect(natsServerFrom(config), config.NATS_REQUEST_TIMEOUT_MS),
        },
        { provide: RpcClient, useFactory: (nats: NatsConnectionHandle) => nats.client, inject: [NatsConnectionHandle] },
        ConnectionsCloser,
        RedisAvailability,
        StoreGate,
      ],
      exports: [GATEWAY_CONFIG, LOGGER, RedisKeys, REDIS, NatsConnectionHandle, RpcClient, RedisAvailability, StoreGate],
    };
  }
}
