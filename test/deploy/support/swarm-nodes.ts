import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { nodeCli, type SwarmCli } from './swarm-cli';

const run = promisify(execFile);

/** Built by `npm run images` (docker/swarm-node.Dockerfile). */
export const SWARM_NODE_IMAGE = process.env.WEFT_SWARM_NODE_IMAGE ?? 'weft/swarm-node:latest';

/** What the inner engine needs without --privileged (refused on hosts that withhold a capability). */
const NODE_RUN_OPTIONS = [
  '--cap-add', 'ALL', '--cap-drop', 'SYS_RESOURCE',
  '--security-opt', 'seccomp=unconfined', '--security-opt', 'apparmor=unconfined', '--security-opt', 'systempaths=unconfined',
  '--device-cgroup-rule', 'a *:* rwm', '--cgroupns', 'private',
];

export interface SwarmNode {
  /** The container's name on the host, also the node's host name inside the swarm. */
  readonly name: string;
  /** Its address on the nodes' bridge network (the host reaches it directly). */
  readonly ip: string;
}

export async function docker(args: string[], timeoutMs = 120_000): Promise<string> {
  const { stdout } = await run('docker', args, { timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** Runs the docker CLI of one node against that node's own engine. */
export function inNode(node: SwarmNode, args: string[], timeoutMs?: number): Promise<string> {
  return docker(['exec', node.name, 'docker', ...args], timeoutMs);
}

/** The image's id on the host (`via` empty) or through `docker exec <node>`. */
async function imageId(image: string, via: string[] = []): Promise<string | undefined> {
  return docker([...via, 'image', 'inspect', '-f', '{{.Id}}', image]).catch(() => undefined);
}

/**
 * Docker-in-Docker nodes on one host, joined into one swarm: the first is the manager. Each node's
 * /var/lib/docker is a named volume kept between runs, so an image is loaded into a node only when
 * the host's copy has a new id; everything else (containers, volumes, networks, swarm state) is
 * removed at start and at the end.
 */
export class SimulatedSwarm {
  private constructor(
    readonly prefix: string,
    readonly nodes: readonly SwarmNode[],
  ) {}

  get manager(): SwarmNode {
    return this.nodes[0] as SwarmNode;
  }

  /** The manager's docker CLI, for the stack helpers (swarm-stack.ts). */
  get managerCli(): SwarmCli {
    return this.cli(this.manager);
  }

  cli(node: SwarmNode): SwarmCli {
    return nodeCli(node.name, node.ip);
  }

  node(index: number): SwarmNode {
    const node = this.nodes[index];
    if (!node) throw new Error(`${this.prefix} has no node ${index}`);
    return node;
  }

  /** Starts `count` nodes on an internal bridge network (no route out of this machine). */
  static async start(prefix: string, count: number, mounts: readonly string[] = []): Promise<SimulatedSwarm> {
    const swarm = new SimulatedSwarm(prefix, Array.from({ length: count }, (_, i) => ({ name: `${prefix}-${i + 1}`, ip: '' })));
    await swarm.removeContainersAndNetwork();
    await docker(['network', 'create', '--internal', '--label', 'weft.test=swarm', prefix]);
    const nodes: SwarmNode[] = [];
    for (const { name } of swarm.nodes) {
      await docker([
        'run', '-d', '--name', name, '--hostname', name, '--network', prefix, '--label', 'weft.test=swarm',
        ...NODE_RUN_OPTIONS,
        '-v', `${name}-docker:/var/lib/docker`, '-e', 'WEFT_SWARM_RESET=1',
        ...mounts.flatMap((m) => ['-v', m]),
        SWARM_NODE_IMAGE,
      ]);
      nodes.push({ name, ip: await docker(['inspect', '-f', `{{(index .NetworkSettings.Networks "${prefix}").IPAddress}}`, name]) });
    }
    const ready = new SimulatedSwarm(prefix, nodes);
    await Promise.all(nodes.map((node) => ready.cleanEngine(node)));
    return ready;
  }

  /** Loads into every node the images it lacks (by id), in one `docker save` that shares their layers. */
  async loadImages(images: readonly string[]): Promise<void> {
    const wanted = await Promise.all(
      images.map(async (image) => {
        const id = await imageId(image);
        if (!id) throw new Error(`image ${image} is not on this host: run npm run images`);
        return { image, id };
      }),
    );
    await Promise.all(
      this.nodes.map(async (node) => {
        const missing: string[] = [];
        for (const { image, id } of wanted) if ((await imageId(image, ['exec', node.name, 'docker'])) !== id) missing.push(image);
        if (missing.length > 0) await pipeImages(missing, node);
      }),
    );
  }

  /** `docker swarm init` on the manager, every other node joined as a worker. */
  async form(): Promise<void> {
    await inNode(this.manager, ['swarm', 'init', '--advertise-addr', this.manager.ip]);
    const token = await inNode(this.manager, ['swarm', 'join-token', '-q', 'worker']);
    for (const node of this.nodes.slice(1)) await inNode(node, ['swarm', 'join', '--advertise-addr', node.ip, '--token', token, `${this.manager.ip}:2377`]);
  }

  async label(node: SwarmNode, labels: readonly string[]): Promise<void> {
    await inNode(this.manager, ['node', 'update', ...labels.flatMap((l) => ['--label-add', `${l}=true`]), node.name]);
  }

  /** Stops the nodes and removes them and their network; the image volumes stay as the cache. */
  async destroy(): Promise<void> {
    await Promise.all(this.nodes.map((node) => this.cleanEngine(node).catch(() => undefined)));
    await this.removeContainersAndNetwork();
  }

  private async cleanEngine(node: SwarmNode): Promise<void> {
    await waitForEngine(node);
    if ((await inNode(node, ['info', '-f', '{{.Swarm.LocalNodeState}}'])) !== 'inactive') await inNode(node, ['swarm', 'leave', '--force'], 300_000);
    const containers = await inNode(node, ['ps', '-aq']);
    if (containers) await inNode(node, ['rm', '-f', '-v', ...containers.split('\n')]);
    await inNode(node, ['volume', 'prune', '-f']);
    await inNode(node, ['network', 'prune', '-f']);
  }

  private async removeContainersAndNetwork(): Promise<void> {
    for (const { name } of this.nodes) await docker(['rm', '-f', '-v', name]).catch(() => undefined);
    await docker(['network', 'rm', this.prefix]).catch(() => undefined);
  }
}

async function waitForEngine(node: SwarmNode, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await inNode(node, ['info', '-f', '{{.ServerVersion}}'], 10_000);
      return;
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`the engine in ${node.name} did not answer within ${timeoutMs} ms`, { cause: error });
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }
}

/** `docker save <images> | docker exec -i <node> docker load`. */
function pipeImages(images: string[], node: SwarmNode): Promise<void> {
  return new Promise((resolve, reject) => {
    const save = spawn('docker', ['save', ...images], { stdio: ['ignore', 'pipe', 'pipe'] });
    const load = spawn('docker', ['exec', '-i', node.name, 'docker', 'load', '-q'], { stdio: ['pipe', 'ignore', 'pipe'] });
    save.stdout.pipe(load.stdin);
    let errors = '';
    save.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    load.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    save.on('error', reject);
    load.on('error', reject);
    load.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`loading ${images.join(', ')} into ${node.name} failed (${code}): ${errors}`))));
  });
}
