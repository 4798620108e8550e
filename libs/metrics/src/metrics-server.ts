import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '@weft/logging';
import type { Registry } from 'prom-client';

/** `GET /metrics` over plain HTTP for Prometheus: a worker's only HTTP port. */
export class MetricsServer {
  private server?: Server;

  constructor(
    private readonly registry: Pick<Registry, 'metrics' | 'contentType'>,
    private readonly log: Logger,
  ) {}

  /** Resolves with the port it bound (the one asked for, or the kernel's pick for 0). */
  async listen(port: number, host: string): Promise<number> {
    const server = createServer((req, res) => {
      if (req.method !== 'GET' || req.url?.split('?')[0] !== '/metrics') {
        res.writeHead(404).end();
        return;
      }
      this.registry.metrics().then(
        (body) => res.writeHead(200, { 'content-type': this.registry.contentType }).end(body),
        (err: unknown) => {
          this.log.error({ err }, 'collecting metrics failed');
          res.writeHead(500).end();
        },
      );
    });
    this.server = server;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    return (server.address() as AddressInfo).port;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (!server) return;
    this.server = undefined;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}
