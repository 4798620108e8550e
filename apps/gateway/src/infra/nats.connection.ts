import { ClientProxyFactory, type ClientProxy, Transport } from '@nestjs/microservices';
import { natsConnectOptions, type NatsServer, RpcClient } from '@weft/messaging';
import type { NatsConnection } from 'nats';

/** The gateway's one NATS connection: the typed RPC client plus a readiness probe. */
export class NatsConnectionHandle {
  private constructor(
    private readonly proxy: ClientProxy,
    readonly client: RpcClient,
  ) {}

  static async connect(nats: NatsServer, defaultTimeoutMs: number): Promise<NatsConnectionHandle> {
    const proxy = ClientProxyFactory.create({ transport: Transport.NATS, options: natsConnectOptions(nats) });
    await proxy.connect();
    return new NatsConnectionHandle(proxy, new RpcClient(proxy, defaultTimeoutMs));
  }

  /** The connection itself, for plain NATS events (the fleet's heartbeats and cancels). */
  get connection(): NatsConnection {
    return this.proxy.unwrap<NatsConnection>();
  }

  /** A round trip to the server (flush), bounded by `timeoutMs`. */
  async ping(timeoutMs: number): Promise<boolean> {
    const connection = this.connection;
    if (connection.isClosed()) return false;
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), timeoutMs)));
    try {
      return await Promise.race([connection.flush().then(() => true), deadline]);
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** A fire-and-forget message: plain JSON, no reply, seen by every subscriber (no queue group). */
  publish(subject: string, payload: unknown): void {
    this.connection.publish(subject, new TextEncoder().encode(JSON.stringify(payload)));
  }

  async close(): Promise<void> {
    await this.proxy.close();
  }
}
