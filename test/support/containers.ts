import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GenericContainer, Wait, type StartedTestContainer } from 'testcontainers';

// Ryuk (the reaper) is an image that cannot be pulled here; each helper stops what it starts.
process.env.TESTCONTAINERS_RYUK_DISABLED ??= 'true';

/** The same names the compose file uses; built locally by `npm run images`. */
export const TestImages = {
  redis: process.env.WEFT_REDIS_IMAGE ?? 'redis:7.0-bookworm',
  nats: process.env.WEFT_NATS_IMAGE ?? 'nats:2.9-alpine',
  sandbox: process.env.WEFT_SANDBOX_IMAGE ?? 'weft/sandbox-runtime:latest',
  sandboxDev: process.env.WEFT_SANDBOX_DEV_IMAGE ?? 'weft/sandbox-dev:latest',
  proxy: process.env.WEFT_PROXY_IMAGE ?? 'weft/egress-proxy:latest',
} as const;

export interface StartedService {
  url: string;
  host: string;
  port: number;
  /**
   * The same service at the container's own address on its Docker network, as compose services
   * reach each other: no published port, so no docker-proxy copying every byte in between.
   */
  networkUrl: string;
  stop: () => Promise<void>;
}

function started(container: StartedTestContainer, scheme: string, port: number): StartedService {
  const host = container.getHost();
  const mapped = container.getMappedPort(port);
  const network = container.getNetworkNames()[0] ?? 'bridge';
  return {
    url: `${scheme}://${host}:${mapped}`,
    host,
    port: mapped,
    networkUrl: `${scheme}://${container.getIpAddress(network)}:${port}`,
    stop: async () => {
      await container.stop({ remove: true, removeVolumes: true });
    },
  };
}

export async function startRedis(): Promise<StartedService> {
  const container = await new GenericContainer(TestImages.redis)
    .withExposedPorts(6379)
    .withWaitStrategy(Wait.forLogMessage(/Ready to accept connections/))
    .start();
  return started(container, 'redis', 6379);
}

/** The compose stack's NATS users (docker/nats-auth.conf) and their passwords. */
export interface NatsPasswords {
  services: string;
  workers: string;
}

export async function startNats(passwords?: NatsPasswords): Promise<StartedService> {
  const docker = resolve(__dirname, '../../docker');
  const config = passwords ? 'nats-auth.conf' : 'nats.conf';
  const container = await new GenericContainer(TestImages.nats)
    .withCopyContentToContainer([
      { content: readFileSync(join(docker, 'nats.conf')), target: '/etc/nats/nats.conf' },
      { content: readFileSync(join(docker, 'nats-auth.conf')), target: '/etc/nats/nats-auth.conf' },
    ])
    .withEnvironment(passwords ? { WEFT_NATS_PASSWORD: passwords.services, WEFT_NATS_WORKER_PASSWORD: passwords.workers } : {})
    .withCommand(['-c', `/etc/nats/${config}`])
    .withExposedPorts(4222)
    .withWaitStrategy(Wait.forLogMessage(/Server is ready/))
    .start();
  return started(container, 'nats', 4222);
}
