import { Global, Injectable, Module, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import { Routes } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { NatsEventBus, RpcClient } from '@weft/messaging';
import type { Redis } from 'ioredis';
import type { Subscription } from 'nats';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { NatsConnectionHandle } from '../infra/nats.connection';
import { RedisKeys } from '../infra/redis-keys';
import { LOGGER, REDIS } from '../infra/tokens';
import { FleetController } from './fleet.controller';
import { FleetEmbeddings } from './fleet-embeddings.client';
import { FleetInferenceClient } from './fleet-inference.client';
import { FleetKeys } from './fleet-keys';
import { FleetRegistry } from './fleet-registry';
import { natsWorkerProbe } from './worker-probe';
import { FleetRouter } from './fleet-router';
import { RedisFleetStore } from './redis-fleet.store';
import { ServiceLiveness } from './service-liveness';

/** Feeds heartbeats into the registry (inference) and the liveness view (tools, sandbox) while the gateway runs. */
@Injectable()
class HeartbeatListener implements OnModuleInit, OnApplicationShutdown {
  private subscription?: Subscription;

  private subscriptions: Subscription[] = [];

  constructor(
    private readonly bus: NatsEventBus,
    private readonly registry: FleetRegistry,
    private readonly services: ServiceLiveness,
  ) {}

  async onModuleInit(): Promise<void> {
    this.subscription = this.bus.subscribe(Routes.inferenceWorkerAnnounced, (heartbeat) => this.registry.apply(heartbeat));
    this.subscriptions = [
      this.bus.subscribe(Routes.toolsWorkerAnnounced, (heartbeat) => this.services.apply('tools', heartbeat)),
      this.bus.subscribe(Routes.sandboxWorkerAnnounced, (heartbeat) => this.services.apply('sandbox', heartbeat)),
    ];
    await this.bus.flush();
  }

  onApplicationShutdown(): void {
    // The connection is the gateway's own, closed by the infra module after every user is done.
    this.subscription?.unsubscribe();
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    this.registry.close();
    this.services.close();
  }
}

/**
 * The inference fleet as this gateway replica sees it: workers from their heartbeats (mirrored
 * in Redis), session affinity in Redis, and routing of generations to the worker holding a
 * session's KV cache. Global, so the agent runtime can take `FleetInferenceClient`.
 */
@Global()
@Module({
  providers: [
    {
      provide: NatsEventBus,
      // The gateway's one connection: the RPC client's, closed with it.
      inject: [NatsConnectionHandle, LOGGER],
      useFactory: (nats: NatsConnectionHandle, log: Logger) => NatsEventBus.over(nats.connection, log),
    },
    {
      provide: RedisFleetStore,
      inject: [REDIS, RedisKeys],
      useFactory: (redis: Redis, keys: RedisKeys) => new RedisFleetStore(redis, new FleetKeys(keys.prefix)),
    },
    {
      provide: FleetRegistry,
      inject: [RedisFleetStore, NatsConnectionHandle, LOGGER],
      useFactory: (store: RedisFleetStore, nats: NatsConnectionHandle, log: Logger) =>
        new FleetRegistry(store, log.child({ component: 'fleet' }), undefined, { probe: natsWorkerProbe(nats.connection) }),
    },
    {
      provide: FleetRouter,
      inject: [FleetRegistry, RedisFleetStore, LOGGER],
      useFactory: (registry: FleetRegistry, store: RedisFleetStore, log: Logger) => new FleetRouter(registry, store, log),
    },
    {
      provide: FleetInferenceClient,
      inject: [RpcClient, NatsEventBus, FleetRegistry, FleetRouter, RedisFleetStore, LOGGER, GATEWAY_CONFIG],
      useFactory: (rpc: RpcClient, bus: NatsEventBus, registry: FleetRegistry, router: FleetRouter, store: RedisFleetStore, log: Logger, config: GatewaySettings) =>
        // A generation that lost its worker waits for another as long as one that found none free.
        new FleetInferenceClient(rpc, bus, registry, router, store, log.child({ component: 'fleet' }), config.AGENT_INFERENCE_BUSY_WAIT_MS),
    },
    {
      provide: FleetEmbeddings,
      inject: [RpcClient, NatsEventBus, FleetRegistry, FleetRouter, LOGGER],
      useFactory: (rpc: RpcClient, bus: NatsEventBus, registry: FleetRegistry, router: FleetRouter, log: Logger) =>
        new FleetEmbeddings(rpc, bus, registry, router, log.child({ component: 'fleet' })),
    },
    {
      provide: ServiceLiveness,
      inject: [LOGGER],
      useFactory: (log: Logger) => new ServiceLiveness(log.child({ component: 'service-liveness' })),
    },
    HeartbeatListener,
  ],
  controllers: [FleetController],
  exports: [FleetRegistry, FleetRouter, FleetInferenceClient, FleetEmbeddings, ServiceLiveness],
})
export class FleetModule {}
