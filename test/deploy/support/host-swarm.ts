import { hostCli, type SwarmCli } from './swarm-cli';

/** The node label that marks a swarm this test support initialised on the host's engine. */
export const TEST_SWARM_LABEL = 'weft.test-swarm';

/**
 * A single-node swarm on the host's own engine, where the images already are. It is made only
 * where the engine is in no swarm, marked with a node label, and left (`docker swarm leave
 * --force`) only by whoever made it; a marked swarm an interrupted run left behind is reclaimed.
 * An engine in a swarm of anyone else's is refused: leaving it would take down that swarm's
 * services. Joining or leaving a swarm touches no container, network or volume outside it.
 */
export class HostSwarm {
  readonly cli: SwarmCli = hostCli();

  private constructor(readonly nodeId: string) {}

  /**
   * Makes the swarm; `reclaim` is called first when a marked swarm is already there, to remove what
   * the interrupted run left in it before it is left.
   */
  static async init(reclaim: (swarm: HostSwarm) => Promise<void>): Promise<HostSwarm> {
    const cli = hostCli();
    const state = await cli.docker(['info', '-f', '{{.Swarm.LocalNodeState}}']);
    if (state !== 'inactive') {
      const marker = await cli.docker(['node', 'inspect', 'self', '-f', `{{index .Spec.Labels "${TEST_SWARM_LABEL}"}}`]).catch(() => '');
      if (marker !== 'true') {
        throw new Error(
          `this Docker engine is already in a swarm (state: ${state}) that the swarm tests did not create; ` +
            'they run only on an engine outside any swarm, and will not leave one they did not make (run them on another engine, or `docker swarm leave` first if that swarm is yours to end)',
        );
      }
      const left = new HostSwarm(await cli.docker(['info', '-f', '{{.Swarm.NodeID}}']));
      await reclaim(left);
      await left.leave();
    }
    // The loopback: the swarm is this engine alone, reachable by no other machine.
    await cli.docker(['swarm', 'init', '--advertise-addr', '127.0.0.1']);
    const nodeId = await cli.docker(['info', '-f', '{{.Swarm.NodeID}}']);
    await cli.docker(['node', 'update', '--label-add', `${TEST_SWARM_LABEL}=true`, nodeId]);
    return new HostSwarm(nodeId);
  }

  async label(labels: readonly string[]): Promise<void> {
    await this.cli.docker(['node', 'update', ...labels.flatMap((l) => ['--label-add', `${l}=true`]), this.nodeId]);
  }

  /** Leaves (and so ends) the swarm, if it is still the marked one this class made. */
  async leave(): Promise<void> {
    const marker = await this.cli.docker(['node', 'inspect', 'self', '-f', `{{index .Spec.Labels "${TEST_SWARM_LABEL}"}}`]).catch(() => '');
    if (marker !== 'true') return;
    await this.cli.docker(['swarm', 'leave', '--force'], { timeoutMs: 120_000 });
  }
}
