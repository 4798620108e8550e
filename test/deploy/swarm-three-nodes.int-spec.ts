import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoredSessionEvent } from '@weft/contracts';
import { docker, inNode, SimulatedSwarm } from './support/swarm-nodes';
import { dumpStackLogs } from './support/swarm-logs';
import { CORE_IMAGES, StackDirectory, createSecrets, deploy, newSecrets, removeStack, startEdge, taskNodes, waitConverged } from './support/swarm-stack';
import { probe, WeftHttp } from './support/weft-http';

// Three Docker-in-Docker nodes, one manager, joined into one swarm: placement by node labels, an
// inference worker's node stopped and the next turn served on another, and a rolling update of
// the gateway under a steady client with no failed request. Long (about 10 minutes on a quiet
// 2-core machine, more the first time, when each node loads the images): `npm run test:swarm`.
const STACK = 'weft';
const run = process.env.WEFT_SWARM_E2E === '1';
const DEMO_SCRIPT = resolve(__dirname, '../../config/scripts/demo.json');
const LOGS_DIR = '/tmp/weft-swarm-e2e-logs';
/** Where the manager node sees the stack directory. */
const STACK_DIR = '/stack';

describe.runIf(run)('deploy/swarm/stack.yml on a three-node swarm', () => {
  // The demo script answers one turn (a tool call, then the answer); this session has two.
  // Made in beforeAll: a skipped suite's body still runs, to collect its tests.
  let dir: StackDirectory | undefined;
  let swarm: SimulatedSwarm | undefined;
  let api: WeftHttp;
  let key: string;
  let sessionId: string;
  let firstTurn: StoredSessionEvent[];

  const fleetWorkers = async () => (await api.call<{ workers: Array<{ workerId: string }> }>('GET', '/v1/admin/fleet', adminToken)).workers.map((w) => w.workerId);
  let adminToken: string;

  beforeAll(async () => {
    const demo = JSON.parse(readFileSync(DEMO_SCRIPT, 'utf8')) as { turns: unknown[] };
    dir = new StackDirectory({ script_demo: JSON.stringify({ turns: [...demo.turns, ...demo.turns] }) });
    swarm = await SimulatedSwarm.start('weft-swarm-e2e', 3, [dir.mountAt(STACK_DIR)]);
    await swarm.loadImages(CORE_IMAGES);
    await swarm.form();
    // Node 1: Redis and the workspaces (tools); node 2: the only GPU node, at first.
    await swarm.label(swarm.node(0), ['weft.redis', 'weft.workspaces']);
    await swarm.label(swarm.node(1), ['weft.gpu']);
    const secrets = newSecrets();
    adminToken = secrets.adminToken;
    await createSecrets(swarm.managerCli, secrets);
    await deploy(swarm.managerCli, STACK_DIR, STACK);
    await waitConverged(swarm.managerCli, STACK, 480_000);
    api = new WeftHttp(await startEdge(swarm.managerCli, STACK), adminToken);
    key = await api.newUserKey('swarm-e2e');
    const workspaceId = await api.uploadWorkspace(key, { 'README.md': 'a workspace on node 1\n' });
    sessionId = await api.createSession(key, workspaceId, 'scripted/demo');
  }, 1_800_000);

  afterAll(async () => {
    if (swarm) {
      await docker(['start', swarm.node(1).name]).catch(() => undefined);
      await removeStack(swarm.managerCli, STACK, swarm.nodes.map((n) => swarm!.cli(n))).catch(() => undefined);
      await swarm.destroy();
    }
    dir?.remove();
  }, 600_000);

  it('places tasks by node label: inference on node 2, tools and Redis on node 1', async () => {
    const [node1, node2] = [swarm!.node(0).name, swarm!.node(1).name];
    expect(await taskNodes(swarm!.managerCli, `${STACK}_inference`)).toEqual([node2]);
    expect(await taskNodes(swarm!.managerCli, `${STACK}_tools`)).toEqual([node1]);
    expect(await taskNodes(swarm!.managerCli, `${STACK}_redis`)).toEqual([node1]);
    expect(await taskNodes(swarm!.managerCli, `${STACK}_gateway`)).toHaveLength(2);
  });

  it('serves a turn with the inference worker on node 2', async () => {
    firstTurn = await api.runTurn(key, sessionId, 'What is in my workspace?');
    expect(firstTurn.at(-1)).toMatchObject({ type: 'turn.completed' });
    expect(await fleetWorkers()).toEqual([expect.stringMatching(new RegExp(`^inference-${swarm!.node(1).name}-`))]);
  });

  it('serves the next turn on node 3 once node 2 is stopped, and loses none of the earlier events', async () => {
    const [node2, node3] = [swarm!.node(1), swarm!.node(2)];
    await swarm!.label(node3, ['weft.gpu']);
    await docker(['stop', '-t', '1', node2.name]);
    // Swarm declares node 2 down after its heartbeats stop, then starts the worker on node 3.
    const deadline = Date.now() + 300_000;
    while (!(await taskNodes(swarm!.managerCli, `${STACK}_inference`)).includes(node3.name)) {
      if (Date.now() > deadline) throw new Error('the inference worker was not rescheduled on node 3 within 300 s');
      await new Promise((r) => setTimeout(r, 2000));
    }
    expect(await inNode(swarm!.manager, ['node', 'inspect', '-f', '{{.Status.State}}', node2.name])).toBe('down');
    // Tasks of a down node still count as running (`3/2`): wait for two gateways on the others.
    while ((await taskNodes(swarm!.managerCli, `${STACK}_gateway`)).filter((n) => n !== node2.name).length < 2) {
      if (Date.now() > deadline) throw new Error('the gateway was not rescheduled off node 2 within 300 s');
      await new Promise((r) => setTimeout(r, 2000));
    }

    const all = await api.runTurn(key, sessionId, 'And now?', 240_000);
    if (all.at(-1)?.type !== 'turn.completed') await dumpStackLogs(swarm!.nodes, STACK, LOGS_DIR);
    expect(all.at(-1), `${JSON.stringify(all.slice(firstTurn.length))} (the services' logs: ${LOGS_DIR})`).toMatchObject({ type: 'turn.completed' });
    expect(all.slice(0, firstTurn.length).map((e) => e.id)).toEqual(firstTurn.map((e) => e.id));
    expect(all.filter((e) => e.type === 'turn.completed')).toHaveLength(2);
    // The gateway drops node 2's worker once its heartbeats are missed; node 3's is the fleet.
    const onNode3 = new RegExp(`^inference-${node3.name}-`);
    const until = Date.now() + 120_000;
    let workers = await fleetWorkers();
    while (!(workers.length === 1 && onNode3.test(workers[0] ?? '')) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 2000));
      workers = await fleetWorkers();
    }
    expect(workers).toEqual([expect.stringMatching(onNode3)]);
    // Node 2 is gone for good: removed, its tasks no longer count as running.
    await inNode(swarm!.manager, ['node', 'rm', '--force', node2.name]);
  }, 900_000);

  it('rolls the gateway over to a new version with no failed request', async () => {
    const statuses: Array<number | string> = [];
    let updating = true;
    const client = (async () => {
      while (updating) {
        statuses.push(await probe(`${api.baseUrl}/v1/sessions/${sessionId}`, key));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const before = await inNode(swarm!.manager, ['service', 'inspect', '-f', '{{.Version.Index}}', `${STACK}_gateway`]);
    // Blocks until every replica is replaced (start-first, one at a time) and the update has settled.
    await inNode(swarm!.manager, ['service', 'update', '--detach=false', '--force', `${STACK}_gateway`], 540_000);
    // The CLI returns once the tasks converged; the update's own state follows.
    const until = Date.now() + 300_000;
    let state = '';
    while ((state = await inNode(swarm!.manager, ['service', 'inspect', '-f', '{{.UpdateStatus.State}}', `${STACK}_gateway`])) === 'updating' && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 2000));
    }
    updating = false;
    await client;
    expect(state).toBe('completed');
    expect(await inNode(swarm!.manager, ['service', 'inspect', '-f', '{{.Version.Index}}', `${STACK}_gateway`])).not.toBe(before);
    expect(statuses.length).toBeGreaterThan(20);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
  }, 900_000);
});
