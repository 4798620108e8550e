import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import type { SwarmCli } from './swarm-cli';

export const STACK_FILE = resolve(__dirname, '../../../deploy/swarm/stack.yml');
/** The images the stack's services run when no node is labelled weft.sandbox. */
export const CORE_IMAGES = [
  process.env.WEFT_APP_IMAGE ?? 'weft/app:latest',
  process.env.WEFT_NATS_IMAGE ?? 'nats:2.9-alpine',
  process.env.WEFT_REDIS_IMAGE ?? 'redis:7.0-bookworm',
];
const EDGE_PORT = 8080;

/**
 * This host's kernel has no IPVS, which Swarm's service VIPs and ingress routing mesh are built on.
 * The stack therefore runs with DNS round-robin endpoints (WEFT_SWARM_ENDPOINT_MODE=dnsrr) and
 * without the gateway's ingress port; the edge container stands in for the routing mesh: it looks
 * the gateway's healthy replicas up in Swarm's DNS for every connection, as a client on the
 * overlay network would, and relays it (no retries: a refused connection reaches the test).
 */
const EDGE_SCRIPT = `
const net = require('node:net'), dns = require('node:dns');
net.createServer((client) => {
  client.on('error', () => client.destroy());
  dns.lookup('gateway', { all: true }, (error, addresses) => {
    if (error || addresses.length === 0) return client.destroy();
    const pick = addresses[Math.floor(Math.random() * addresses.length)];
    const upstream = net.connect(8080, pick.address);
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
}).listen(${EDGE_PORT});
`;

/** A copy of deploy/swarm/stack.yml beside copies of its config files, ready to mount in a node. */
export class StackDirectory {
  readonly path = mkdtempSync(join(tmpdir(), 'weft-swarm-stack-'));

  /** `configs`: content for some of the stack's configs (by name) in place of their files'. */
  constructor(configs: Record<string, string> = {}) {
    const stack = parse(readFileSync(STACK_FILE, 'utf8'), { merge: true }) as StackFile;
    delete stack.services.gateway?.ports;
    mkdirSync(join(this.path, 'configs'));
    for (const [name, config] of Object.entries(stack.configs)) {
      // The default of `${WEFT_MODELS_CONFIG:-…}`: the docker CLI would interpolate it.
      const source = config.file.replace(/^\$\{[A-Z_]+:-(.*)\}$/, '$1');
      const copy = join(this.path, 'configs', name);
      if (configs[name] === undefined) copyFileSync(resolve(dirname(STACK_FILE), source), copy);
      else writeFileSync(copy, configs[name]);
      config.file = `./configs/${name}`;
    }
    const unknown = Object.keys(configs).filter((name) => !(name in stack.configs));
    if (unknown.length > 0) throw new Error(`the stack file has no config ${unknown.join(', ')}`);
    // YAML 1.1, as the docker CLI reads it: `yes` stays a quoted string.
    writeFileSync(join(this.path, 'stack.yml'), stringify(stack, { version: '1.1' }));
  }

  /** The bind mount that shows it to a Docker-in-Docker node at `target`. */
  mountAt(target: string): string {
    return `${this.path}:${target}:ro`;
  }

  remove(): void {
    rmSync(this.path, { recursive: true, force: true });
  }
}

interface StackFile {
  services: Record<string, { ports?: unknown }>;
  configs: Record<string, { file: string }>;
}

export interface StackSecrets {
  adminToken: string;
  natsPassword: string;
  natsWorkerPassword: string;
}

export function newSecrets(): StackSecrets {
  // A letter first: NATS reads its passwords as config values, and one that starts like a number
  // ("3e5…", "12k…") stops it at start (docs/deploy-swarm.md).
  const secret = () => `w${randomBytes(18).toString('hex')}`;
  return { adminToken: secret(), natsPassword: secret(), natsWorkerPassword: secret() };
}

/** The secrets' names in the stack file, each with its value. */
function namedSecrets(secrets: StackSecrets): Record<string, string> {
  return {
    weft_admin_token: secrets.adminToken,
    weft_nats_password: secrets.natsPassword,
    weft_nats_worker_password: secrets.natsWorkerPassword,
  };
}

/** `docker secret create` on the manager, the value on stdin: never on a command line. */
export async function createSecrets(manager: SwarmCli, secrets: StackSecrets): Promise<void> {
  for (const [name, value] of Object.entries(namedSecrets(secrets))) await manager.docker(['secret', 'create', '--label', 'weft.test=swarm', name, '-'], { input: value });
}

/** Removes the secrets createSecrets made (those still there). */
export async function removeSecrets(manager: SwarmCli): Promise<void> {
  const ours = await manager.docker(['secret', 'ls', '-q', '--filter', 'label=weft.test=swarm']);
  if (ours) await manager.docker(['secret', 'rm', ...ours.split('\n')]);
}

/** The stack file's settings this process passes on where it sets them: images, log level, volume name. */
const STACK_SETTINGS = ['WEFT_LOG_LEVEL', 'WEFT_APP_IMAGE', 'WEFT_INFERENCE_IMAGE', 'WEFT_NATS_IMAGE', 'WEFT_REDIS_IMAGE', 'WEFT_PROXY_IMAGE', 'WEFT_WORKSPACES_VOLUME'];

/**
 * `docker stack deploy` on the manager from `stackDir` (where the manager sees a StackDirectory),
 * with DNS round-robin endpoints (see EDGE_SCRIPT), `--resolve-image never` (there is no registry
 * to ask for digests: each ask waits for a timeout), and `settings` over this process's own.
 */
export async function deploy(manager: SwarmCli, stackDir: string, name: string, settings: Record<string, string> = {}): Promise<void> {
  const env: Record<string, string> = { WEFT_SWARM_ENDPOINT_MODE: 'dnsrr' };
  for (const key of STACK_SETTINGS) if (process.env[key]) env[key] = process.env[key];
  if (process.env.WEFT_APP_IMAGE && !process.env.WEFT_INFERENCE_IMAGE) env.WEFT_INFERENCE_IMAGE = process.env.WEFT_APP_IMAGE;
  Object.assign(env, settings);
  await manager.docker(['stack', 'deploy', '--resolve-image', 'never', '-c', 'stack.yml', name], { env, cwd: stackDir });
}

/** Each service's running and wanted tasks, from `docker service ls`. */
export async function replicas(manager: SwarmCli, stack: string): Promise<Record<string, string>> {
  const lines = await manager.docker(['service', 'ls', '--filter', `label=com.docker.stack.namespace=${stack}`, '--format', '{{.Name}} {{.Replicas}}']);
  return Object.fromEntries(lines.split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]));
}

/** Waits until every service of the stack runs as many healthy tasks as it wants. */
export async function waitConverged(manager: SwarmCli, stack: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: Record<string, string> = {};
  while (Date.now() < deadline) {
    last = await replicas(manager, stack);
    const counts = Object.values(last).map((r) => r.split('/').map(Number));
    if (counts.length > 0 && counts.every(([running, wanted]) => running === wanted)) return;
    await new Promise((r) => setTimeout(r, 2000));
  }
  throw new Error(`the stack did not converge within ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

/** Where each running task of a service is: node names, one per task. */
export async function taskNodes(manager: SwarmCli, service: string): Promise<string[]> {
  const lines = await manager.docker(['service', 'ps', service, '--filter', 'desired-state=running', '--format', '{{.Node}} {{.CurrentState}}']);
  return lines
    .split('\n')
    .filter((line) => line.includes(' Running'))
    .map((line) => line.split(' ')[0] as string)
    .sort();
}

const edgeName = (stack: string) => `${stack}-edge`;

/**
 * Starts the edge relay on the manager, on the stack's network, its port published on the
 * manager's `manager.publishAddress` (a free port); returns the gateway's base URL as this process
 * reaches it.
 */
export async function startEdge(manager: SwarmCli, stack: string, image = CORE_IMAGES[0] as string): Promise<string> {
  const edge = edgeName(stack);
  await manager.docker(['run', '-d', '--name', edge, '--label', 'weft.test=swarm', '--network', `${stack}_backend`, '-p', `${manager.publishAddress}::${EDGE_PORT}`, image, 'node', '-e', EDGE_SCRIPT]);
  const published = (await manager.docker(['port', edge, `${EDGE_PORT}/tcp`])).split('\n')[0] ?? '';
  const url = `http://${manager.address}:${published.slice(published.lastIndexOf(':') + 1)}`;
  // Until the relay listens and a gateway behind it is ready.
  const deadline = Date.now() + 120_000;
  while ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.ok, () => false)) === false) {
    if (Date.now() > deadline) throw new Error(`no gateway answered ${url}/readyz within 120 s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  return url;
}

/**
 * Removes the edge and the stack, and waits until the stack's containers are gone from every node
 * in `nodes` (the manager's engine alone by default) and its networks from the manager's.
 */
export async function removeStack(manager: SwarmCli, name: string, nodes: readonly SwarmCli[] = [manager], timeoutMs = 120_000): Promise<void> {
  await manager.docker(['rm', '-f', edgeName(name)]).catch(() => undefined);
  await manager.docker(['stack', 'rm', name]);
  const deadline = Date.now() + timeoutMs;
  const left = (cli: SwarmCli, kind: 'ps' | 'network') =>
    cli.docker(kind === 'ps' ? ['ps', '-aq', '--filter', `label=com.docker.stack.namespace=${name}`] : ['network', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${name}`]).catch(() => '');
  for (const node of nodes) {
    while (await left(node, 'ps')) {
      if (Date.now() > deadline) throw new Error(`the containers of stack ${name} were still there ${timeoutMs} ms after docker stack rm`);
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  while (await left(manager, 'network')) {
    if (Date.now() > deadline) throw new Error(`the networks of stack ${name} were still there ${timeoutMs} ms after docker stack rm`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Removes the volumes the stack's tasks made on that engine (once its containers are gone). */
export async function removeStackVolumes(cli: SwarmCli, name: string): Promise<void> {
  const volumes = await cli.docker(['volume', 'ls', '-q', '--filter', `label=com.docker.stack.namespace=${name}`]);
  if (volumes) await cli.docker(['volume', 'rm', ...volumes.split('\n')]);
}
