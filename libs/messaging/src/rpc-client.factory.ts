import { ClientProxyFactory, Transport } from '@nestjs/microservices';
import { natsConnectOptions, type NatsServer } from './nats-server';
import { RpcClient } from './rpc-client';

/** Connects a NATS client proxy and wraps it; close it with `closeRpcClient`. */
export async function connectRpcClient(nats: NatsServer, defaultTimeoutMs: number) {
  const proxy = ClientProxyFactory.create({ transport: Transport.NATS, options: natsConnectOptions(nats) });
  await proxy.connect();
  return { client: new RpcClient(proxy, defaultTimeoutMs), close: () => proxy.close() };
}
