import { ClientProxyFactory, Transport } from '@nestjs/microservices';
import { RpcClient } from './rpc-client';

/** Connects a NATS client proxy and wraps it; close it with `closeRpcClient`. */
export async function connectRpcClient(natsUrl: string, defaultTimeoutMs: number) {
  const proxy = ClientProxyFactory.create({
    transport: Transport.NATS,
    options: { servers: [natsUrl], maxReconnectAttempts: -1 },
  });
  await proxy.connect();
  return { client: new RpcClient(proxy, defaultTimeoutMs), close: () => proxy.close() };
}
