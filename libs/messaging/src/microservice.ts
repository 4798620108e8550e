import { type INestMicroservice, type Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { type MicroserviceOptions, Transport } from '@nestjs/microservices';
import { PinoNestLogger, type Logger } from '@weft/logging';
import { natsConnectOptions, type NatsServer } from './nats-server';
import { NatsTraceInterceptor } from './nats-trace.interceptor';
import { WireErrorFilter } from './rpc-server';

export interface NatsMicroserviceOptions {
  nats: NatsServer;
  /** Queue group: replicas of one service share its subjects. */
  queue: string;
  logger: Logger;
}

/**
 * Creates a worker: a NestJS microservice on the NATS transport in its service's queue group,
 * logging through pino, with every error leaving it as a wire error, messages that carry a trace
 * context traced, and shutdown hooks on.
 */
export async function createNatsMicroservice(
  module: Type<unknown>,
  options: NatsMicroserviceOptions,
): Promise<INestMicroservice> {
  const app = await NestFactory.createMicroservice<MicroserviceOptions>(module, {
    transport: Transport.NATS,
    options: { ...natsConnectOptions(options.nats), queue: options.queue },
    logger: new PinoNestLogger(options.logger),
    // A failure while Nest starts is an ordinary error for main() to report, not process.abort().
    abortOnError: false,
  });
  app.useGlobalFilters(
    new WireErrorFilter((error) => options.logger.error({ err: error }, `unexpected error in ${options.queue} worker`)),
  );
  app.useGlobalInterceptors(new NatsTraceInterceptor());
  app.enableShutdownHooks();
  return app;
}
