import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { parse, stringify } from 'yaml';
import { inNode, type SimulatedSwarm, type SwarmNode } from './swarm-nodes';

export const STACK_FILE = resolve(__dirname, '../../../deploy/swarm/stack.yml');
/** The images the stack's services run when no node is labelled weft.sandbox. */
export const CORE_IMAGES = [
  process.env.WEFT_APP_IMAGE ?? 'weft/app:latest',
  process.env.WEFT_NATS_IMAGE ?? 'nats:2.9-alpine',
  process.env.WEFT_REDIS_IMAGE ?? 'redis:7.0-bookworm',
];
/** Where the manager node sees the stack directory. */
const STACK_DIR_IN_NODE = '/stack';
const EDGE = 'weft-edge';
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

  constructor() {
    const stack = parse(readFileSync(STACK_FILE, 'utf8'), { merge: true }) as StackFile;
    delete stack.services.gateway?.ports;
    mkdirSync(join(this.path, 'configs'));
    for (const [name, config] of Object.entries(stack.configs)) {
      // The default of `${WEFT_MODELS_CONFIG:-…}`: the docker CLI would interpolate it.
      const source = config.file.replace(/^\$\{[A-Z_]+:-(.*)\}$/, '$1');
      copyFileSync(resolve(dirname(STACK_FILE), source), join(this.path, 'configs', name));
      config.file = `./configs/${name}`;
    }
    // YAML 1.1, as the docker CLI reads it: `yes` stays a quoted string.
    writeFileSync(join(this.path, 'stack.yml'), stringify(stack, { version: '1.1' }));
  }

  /** The bind mount that shows it to a node at /stack. */
  get mount(): string {
    return `${this.path}:${STACK_DIR_IN_NODE}:ro`;
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
  const secret = () => randomBytes(18).toString('hex');
  return { adminToken: secret(), natsPassword: secret(), natsWorkerPassword: secret() };
}

/** `docker secret create` on the manager, the value on stdin: never on a command line. */
export async function createSecrets(manager: SwarmNode, secrets: StackSecrets): Promise<void> {
  const named: Record<string, string> = {
    weft_admin_token: secrets.adminToken,
    weft_nats_password: secrets.natsPassword,
    weft_nats_worker_password: secrets.natsWorkerPassword,
  };
  for (const [name, value] of Object.entries(named)) await withInput(['exec', '-i', manager.name, 'docker', 'secret', 'create', name, '-'], value);
}

/** The image names the stack file reads, where this process sets them. */
const IMAGE_SETTINGS = ['WEFT_APP_IMAGE', 'WEFT_INFERENCE_IMAGE', 'WEFT_NATS_IMAGE', 'WEFT_REDIS_IMAGE', 'WEFT_PROXY_IMAGE'];

/**
 * `docker stack deploy` on the manager, with DNS round-robin endpoints (see EDGE_SCRIPT) and
 * `--resolve-image never`: there is no registry to ask for digests (each ask waits for a timeout).
 */
export async function deploy(swarm: SimulatedSwarm, name: string): Promise<void> {
  const env = ['WEFT_SWARM_ENDPOINT_MODE=dnsrr', ...IMAGE_SETTINGS.filter((k) => process.env[k]).map((k) => `${k}=${process.env[k]}`)];
  if (process.env.WEFT_APP_IMAGE && !process.env.WEFT_INFERENCE_IMAGE) env.push(`WEFT_INFERENCE_IMAGE=${process.env.WEFT_APP_IMAGE}`);
  await withInput(
    ['exec', '-i', ...env.flatMap((e) => ['-e', e]), '-w', STACK_DIR_IN_NODE, swarm.manager.name, 'docker', 'stack', 'deploy', '--resolve-image', 'never', '-c', 'stack.yml', name],
    '',
  );
}

/** Each service's running and wanted tasks, from `docker service ls`. */
export async function replicas(manager: SwarmNode): Promise<Record<string, string>> {
  const lines = await inNode(manager, ['service', 'ls', '--format', '{{.Name}} {{.Replicas}}']);
  return Object.fromEntries(lines.split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]));
}

/** Waits until every service of the stack runs as many healthy tasks as it wants (and at least one). */
export async function waitConverged(manager: SwarmNode, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: Record<string, string> = {};
  while (Date.now() < deadline) {
    last = await replicas(manager);
    const counts = Object.values(last).map((r) => r.split('/').map(Number));
    if (counts.length > 0 && counts.every(([running, wanted]) => running === wanted)) return;
    await new Promise((r) => setTimeout(r, 2000));
  }
  throw new Error(`the stack did not converge within ${timeoutMs} ms: ${JSON.stringify(last)}`);
}

/** Where each running task of a service is: node names, one per task. */
export async function taskNodes(manager: SwarmNode, service: string): Promise<string[]> {
  const lines = await inNode(manager, ['service', 'ps', service, '--filter', 'desired-state=running', '--format', '{{.Node}} {{.CurrentState}}']);
  return lines
    .split('\n')
    .filter((line) => line.includes(' Running'))
    .map((line) => line.split(' ')[0] as string)
    .sort();
}

/** Starts the edge relay on the manager, on the stack's network; returns the gateway's base URL. */
export async function startEdge(manager: SwarmNode, stack: string, image = CORE_IMAGES[0] as string): Promise<string> {
  await inNode(manager, ['run', '-d', '--name', EDGE, '--network', `${stack}_backend`, '-p', `${EDGE_PORT}:${EDGE_PORT}`, image, 'node', '-e', EDGE_SCRIPT]);
  const url = `http://${manager.ip}:${EDGE_PORT}`;
  // Until the relay listens and a gateway behind it is ready.
  const deadline = Date.now() + 120_000;
  while ((await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(10_000) }).then((r) => r.ok, () => false)) === false) {
    if (Date.now() > deadline) throw new Error(`no gateway answered ${url}/readyz within 120 s`);
    await new Promise((r) => setTimeout(r, 1000));
  }
  return url;
}

/** Removes the stack and waits until its tasks' containers are gone from every node. */
export async function removeStack(swarm: SimulatedSwarm, name: string): Promise<void> {
  await inNode(swarm.manager, ['rm', '-f', EDGE]).catch(() => undefined);
  await inNode(swarm.manager, ['stack', 'rm', name]);
  const deadline = Date.now() + 120_000;
  for (const node of swarm.nodes) {
    while (Date.now() < deadline && (await inNode(node, ['ps', '-q', '--filter', `label=com.docker.stack.namespace=${name}`]).catch(() => ''))) {
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
}

function withInput(args: string[], input: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('docker', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`docker ${args.join(' ')} failed (${code}): ${err}`))));
    child.stdin.end(input);
  });
}
