import { type INestMicroservice, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';

export interface NatsMicroserviceOptions {
  natsUrl: string;
  /** Queue group: replicas of one service share its subjects. */
  queue: string;
  logger?: false | Array<'log' | 'error' | 'warn' | 'debug' | 'verbose' | 'fatal'>;
}

/** Creates a NestJS microservice on the NATS transport in its service's queue group. */
export async function createNatsMicroservice(
  module: Type<unknown>,
  options: NatsMicroserviceOptions,
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, {
    transport: Transport.NATS,
    options: { servers: [options.natsUrl], queue: options.queue, maxReconnectAttempts: -1 },
    logger: options.logger,
  });
  app.enableShutdownHooks();
  return app;
}
