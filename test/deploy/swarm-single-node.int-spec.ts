import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HostSwarm, TEST_SWARM_LABEL } from './support/host-swarm';
import { hostCli, type SwarmCli } from './support/swarm-cli';
import { StackDirectory, createSecrets, deploy, newSecrets, removeSecrets, removeStack, removeStackVolumes, startEdge, taskNodes, waitConverged } from './support/swarm-stack';
import { WeftHttp } from './support/weft-http';

// deploy/swarm/stack.yml on a single-node swarm of the host's own engine, where `npm run images`
// left the images: deployed, every service healthy, turns through the gateway's API (a file tool,
// and a session's command through its node's proxy task), all of it removed again. It makes the
// swarm itself and refuses an engine already in someone else's (support/host-swarm.ts); it
// touches only what it made. CI runs it as a step of its own after
// `npm test`: `npm run test:swarm-single` (WEFT_SWARM_SINGLE=1).
const STACK = 'weft-swarm-ci';
const SANDBOX_IMAGE = process.env.WEFT_SANDBOX_IMAGE ?? 'weft/sandbox-runtime:latest';
/** The demo script, and a branch for a message that asks for a command: does the run see its node's proxy? */
const demo = JSON.parse(readFileSync(resolve(__dirname, '../../config/scripts/demo.json'), 'utf8')) as object;
const SCRIPT = {
  ...demo,
  branches: [
    {
      when: '^Run a command',
      turns: [
        { text: 'Checking the proxy.', toolCalls: [{ name: 'run_command', arguments: { command: 'getent hosts weft-proxy && exec 3<>/dev/tcp/weft-proxy/3128 && echo proxy-answers' } }] },
        { text: 'The proxy answers.' },
      ],
    },
  ],
};
const run = process.env.WEFT_SWARM_SINGLE === '1';
/** The users whose sandbox package caches the teardown removes. */
const sandboxUsers: string[] = [];

describe.runIf(run)('the single-node swarm on this engine', () => {
  const host = hostCli();
  const swarmState = () => host.docker(['info', '-f', '{{.Swarm.LocalNodeState}}']);

  it('refuses an engine already in a swarm it did not make, and leaves that swarm be', async () => {
    expect(await swarmState(), 'this engine must be in no swarm to run the swarm tests').toBe('inactive');
    await host.docker(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
    try {
      const reclaimed: string[] = [];
      await expect(HostSwarm.init(async (s) => void reclaimed.push(s.nodeId))).rejects.toThrow(/already in a swarm .* that the swarm tests did not create/);
      expect(reclaimed).toEqual([]);
      expect(await swarmState()).toBe('active');
    } finally {
      await host.docker(['swarm', 'leave', '--force']);
    }
  });

  it('reclaims a swarm it marked that an interrupted run left, and leaves only its own', async () => {
    await host.docker(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
    const left = await host.docker(['info', '-f', '{{.Swarm.NodeID}}']);
    await host.docker(['node', 'update', '--label-add', `${TEST_SWARM_LABEL}=true`, left]);
    const reclaimed: string[] = [];
    const swarm = await HostSwarm.init(async (s) => void reclaimed.push(s.nodeId));
    expect(reclaimed).toEqual([left]);
    expect(swarm.nodeId).not.toBe(left);
    await swarm.leave();
    expect(await swarmState()).toBe('inactive');
  });
});

describe.runIf(run)('deploy/swarm/stack.yml on a single-node swarm of this engine', () => {
  // Made in beforeAll: a skipped suite's body still runs, to collect its tests.
  let dir: StackDirectory | undefined;
  let swarm: HostSwarm | undefined;
  let api: WeftHttp;
  const node = () => swarm!.cli.docker(['info', '-f', '{{.Name}}']);

  /**
   * What this stack leaves on the engine: its containers, networks, volumes and secrets, and what
   * its sandbox worker made (session containers, the users' proxy networks and package caches).
   */
  const removeAll = async (target: HostSwarm) => {
    const made = await sandboxMade(target.cli);
    await removeStack(target.cli, STACK);
    await made.remove();
    await removeStackVolumes(target.cli, STACK);
    await removeSecrets(target.cli);
  };

  beforeAll(async () => {
    dir = new StackDirectory({ script_demo: JSON.stringify(SCRIPT) });
    swarm = await HostSwarm.init(removeAll);
    await swarm.label(['weft.redis', 'weft.workspaces', 'weft.gpu', 'weft.sandbox']);
    const secrets = newSecrets();
    await createSecrets(swarm.cli, secrets);
    // Its own workspaces volume: the stack file's default name is the compose stack's.
    // Its own workspaces volume and egress network: the stack file's defaults are the compose stack's.
    await deploy(swarm.cli, dir.path, STACK, {
      WEFT_WORKSPACES_VOLUME: `${STACK}_workspaces`,
      WEFT_SANDBOX_EGRESS_NETWORK: `${STACK}-egress`,
      WEFT_SANDBOX_IMAGES: `minimal=${SANDBOX_IMAGE}`,
      WEFT_SANDBOX_DEFAULT_IMAGE: 'minimal',
    });
    await waitConverged(swarm.cli, STACK, 240_000);
    api = new WeftHttp(await startEdge(swarm.cli, STACK), secrets.adminToken);
  }, 420_000);

  afterAll(async () => {
    try {
      if (swarm) await removeAll(swarm);
    } finally {
      await swarm?.leave();
      dir?.remove();
    }
  }, 300_000);

  it('runs two gateway replicas and one of each worker, all healthy', async () => {
    const name = await node();
    expect(await taskNodes(swarm!.cli, `${STACK}_gateway`)).toEqual([name, name]);
    for (const service of ['nats', 'redis', 'inference', 'tools', 'sandbox', 'proxy']) expect(await taskNodes(swarm!.cli, `${STACK}_${service}`)).toEqual([name]);
  });

  it('runs a turn through the gateway: a tool call on the tools worker, the answer from the inference worker', async () => {
    const key = await api.newUserKey('swarm-ci');
    const workspaceId = await api.uploadWorkspace(key, { 'README.md': 'a workspace on the swarm\n' });
    const sessionId = await api.createSession(key, workspaceId, 'scripted/demo');
    const events = await api.runTurn(key, sessionId, 'What is in my workspace?');
    expect(events.at(-1)).toMatchObject({ type: 'turn.completed' });
    const listed = events.find((e) => e.type === 'tool.completed');
    expect(listed).toMatchObject({ name: 'list_directory', isError: false });
    expect(JSON.stringify(listed)).toContain('README.md');
  });

  it("runs a session's command on its node, through that node's proxy task (the worker finds it by the stack's label)", async () => {
    const { id, key } = await api.newUser('swarm-ci-sandbox');
    sandboxUsers.push(id);
    const workspaceId = await api.uploadWorkspace(key, { 'README.md': 'commands on the swarm\n' });
    const sessionId = await api.createSession(key, workspaceId, 'scripted/demo', { sandboxNetwork: 'proxy' });
    const events = await api.runTurn(key, sessionId, 'Run a command that reaches the proxy.', 120_000, true);
    const ran = events.find((e) => e.type === 'tool.completed');
    expect(events.at(-1), JSON.stringify(ran ?? events.at(-1))).toMatchObject({ type: 'turn.completed' });
    expect(ran).toMatchObject({ name: 'run_command', isError: false });
    expect(JSON.stringify(ran)).toContain('proxy-answers');
  });
});

/**
 * What the stack's sandbox worker made on this engine, found by the ids of its tasks (the worker's
 * instance id is its container's host name; a user's proxy network is named after the proxy).
 */
async function sandboxMade(cli: SwarmCli): Promise<{ remove: () => Promise<void> }> {
  const tasks = async (service: string) => (await cli.docker(['ps', '-aq', '--filter', `label=com.docker.swarm.service.name=${STACK}_${service}`])).split('\n').filter(Boolean);
  const [workers, proxies] = [await tasks('sandbox'), await tasks('proxy')];
  return {
    remove: async () => {
      for (const worker of workers) {
        const containers = await cli.docker(['ps', '-aq', '--filter', `label=weft.sandbox.instance=${worker}`]);
        if (containers) await cli.docker(['rm', '-f', '-v', ...containers.split('\n')]);
      }
      const networks = (await cli.docker(['network', 'ls', '--filter', 'label=weft.sandbox.proxy-network=1', '--format', '{{.Name}}']))
        .split('\n')
        .filter((name) => proxies.some((proxy) => name.startsWith(`weft-proxy-${proxy.slice(0, 12)}-`)));
      if (networks.length > 0) await cli.docker(['network', 'rm', ...networks]);
      await cli.docker(['network', 'rm', `${STACK}-egress`]).catch(() => undefined);
      for (const owner of sandboxUsers) {
        const caches = await cli.docker(['volume', 'ls', '-q', '--filter', 'label=weft.sandbox.cache=1', '--filter', `label=weft.sandbox.owner=${owner}`]);
        if (caches) await cli.docker(['volume', 'rm', ...caches.split('\n')]);
      }
    },
  };
}
