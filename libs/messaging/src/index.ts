export { RpcClient, toAppError } from './rpc-client';
export type { RequestOptions } from './rpc-client';
export { connectRpcClient } from './rpc-client.factory';
export { WireErrorFilter, ZodPayloadPipe } from './rpc-server';
export { createNatsMicroservice } from './microservice';
export type { NatsMicroserviceOptions } from './microservice';
export { listenAndMarkReady, markReady } from './readiness';
export { NatsEventBus } from './event-bus';
