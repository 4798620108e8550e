import { createHash, randomBytes } from 'node:crypto';
import { Inject, Injectable } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import { AppError, ErrorCode, type ExecResult, type ExecSession } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import {
  CONTAINER_RUNTIME,
  ContainerNotRunningError,
  type ContainerRuntime,
  type RunOptions,
  type RunOutcome,
  SandboxLabels,
} from '../docker/container-runtime';
import { SESSION_EXEC_PATH, WORKSPACE_TARGET, buildSessionSpec, commandLine } from '../exec/container-spec';
import { EgressNetwork } from '../exec/egress-network';
import type { ParsedExecRequest } from '../exec/exec-request';
import { ensureProtectedFolder } from '../exec/protected-folder';
import { WorkspaceLocator } from '../exec/workspace-locator';
import { ImageCatalogue, type ResolvedImage } from '../images/image-catalogue';
import { LOGGER, SANDBOX_CONFIG } from '../tokens';
import type { CommandChannel, InteractiveRun } from '../docker/command-channel';
import { ProxyNetworks } from './proxy-networks';
import { CacheQuota } from '../cache/cache-quota';
import { cacheVolumeName } from '../cache/cache-spec';
import { compareSnapshots, snapshotWorkspace } from './workspace-changes';

export type SessionCommand = Extract<ParsedExecRequest, { mode: 'command' }> & { session: ExecSession };
/** What picks a session's container: everything but the command. */
export type SessionTarget = Pick<SessionCommand, 'workspaceId' | 'session' | 'writable' | 'network' | 'image' | 'cwd'>;

interface Live {
  id: string;
  /** Commands this process has run in it; an adopted container counts as used. */
  runs: number;
  /** Its command server, when the image has one; else commands go through `docker exec`. */
  channel?: CommandChannel;
}

/** How long a command server may take to answer its first ping: Node's start in a new container, on a busy host. */
const SERVER_READY_MS = { created: 10_000, adopted: 2_000 } as const;

/**
 * One container per session, made on its first command with that session's workspace, image and
 * network, and reused by its later commands (`docker exec`, each command in a process group of
 * its own). It stops itself when idle and is removed then, when the session is released, or
 * when this worker stops. A container is found by its name, which is derived from everything it
 * was made for, so replicas share it and a session never gets another session's container.
 */
@Injectable()
export class SessionContainers {
  private readonly live = new Map<string, Promise<Live>>();
  /** The settled entries of `live`, so a stale one can be dropped without waiting. */
  private readonly resolved = new Map<string, Live>();

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    @Inject(CONTAINER_RUNTIME) private readonly runtime: ContainerRuntime,
    private readonly locator: WorkspaceLocator,
    private readonly catalogue: ImageCatalogue,
    private readonly proxies: ProxyNetworks,
    private readonly egress: EgressNetwork,
    private readonly cacheQuota: CacheQuota,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** Session containers this process holds (made, adopted or being made). */
  get count(): number {
    return this.live.size;
  }

  async run(request: SessionCommand, options: RunOptions): Promise<ExecResult> {
    const { located, root, image, name, workingDir } = await this.prepare(request);
    const runId = randomBytes(8).toString('hex');
    const argv = [SESSION_EXEC_PATH, runId, ...commandLine(request)];
    // A container that stopped idle between lookup and exec ran nothing: make it again, once.
    for (let attempt = 0; ; attempt++) {
      const container = await this.container(name, request, image, located.hostPath);
      const before = request.writable ? await snapshotWorkspace(root) : undefined;
      try {
        const outcome = await this.untrusting(name, container, () =>
          container.channel?.open
            ? container.channel.run(commandLine(request), workingDir, options)
            : this.runtime.exec(container.id, argv, { ...options, workingDir, killArgv: [SESSION_EXEC_PATH, '--kill', runId] }),
        );
        const reused = container.runs > 0;
        container.runs++;
        const changes = before ? compareSnapshots(before, await snapshotWorkspace(root)) : undefined;
        if (this.config.SANDBOX_PACKAGE_CACHE) this.cacheQuota.afterCommand(request.session.ownerId);
        return { ...outcome, image: image.id, reused, ...(changes ? { changes } : {}) };
      } catch (error) {
        if (!(error instanceof ContainerNotRunningError) || attempt > 0) throw error;
        this.forget(name, container.id);
      }
    }
  }

  /**
   * A command that ran out of time or was cancelled takes its container with it. Its kill went
   * through processes inside the sandbox (the command server, weft-exec), which the command
   * itself could have stopped or replaced; removing the container is the kill nothing inside
   * can dodge. The session's next command gets a fresh container (the workspace is kept).
   */
  private async untrusting(name: string, container: Live, work: () => Promise<RunOutcome>): Promise<RunOutcome> {
    try {
      const outcome = await work();
      if (outcome.timedOut) await this.discard(name, container.id);
      return outcome;
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.SandboxCancelled) await this.discard(name, container.id);
      throw error;
    }
  }

  private async discard(name: string, id: string): Promise<void> {
    if (this.resolved.get(name)?.id === id) {
      this.live.delete(name);
      this.resolved.delete(name);
    }
    await this.runtime.removeContainer(id);
  }

  /**
   * A long-lived process with its stdin open (a stdio MCP server) in the session's container,
   * as its commands get it. Needs the container's command server (Node in the image).
   */
  async spawn(request: SessionTarget, argv: string[], env: Record<string, string>, onStdout: (chunk: Buffer) => void): Promise<InteractiveRun> {
    const { located, image, name, workingDir } = await this.prepare(request);
    for (let attempt = 0; ; attempt++) {
      const container = await this.container(name, request, image, located.hostPath);
      if (!container.channel?.open) {
        throw new AppError(
          ErrorCode.SandboxUnavailable,
          `The sandbox image ${image.id} has no command server (Node), so it cannot run a stdio server`,
          { image: image.id },
          false,
        );
      }
      try {
        const run = await container.channel.spawn(argv, workingDir, env, onStdout);
        container.runs++;
        return run;
      } catch (error) {
        if (!(error instanceof ContainerNotRunningError) || attempt > 0) throw error;
        this.forget(name, container.id);
      }
    }
  }

  private async prepare(request: SessionTarget) {
    const located = await this.locator.locate(request.workspaceId, request.cwd);
    const root = this.locator.localRoot(request.workspaceId);
    const image = await this.catalogue.resolve(request.image, root);
    if (request.writable) await ensureProtectedFolder(root);
    const name = sessionContainerName(request, image);
    const workingDir = located.cwd ? `${WORKSPACE_TARGET}/${located.cwd}` : WORKSPACE_TARGET;
    return { located, root, image, name, workingDir };
  }

  /** Removes every container of the session (it was deleted); returns how many. */
  async release(sessionId: string): Promise<number> {
    const containers = await this.runtime.listLabelled(SandboxLabels.session, sessionId);
    await Promise.all(containers.map((c) => this.runtime.removeContainer(c.id)));
    for (const [name, live] of this.live) {
      if (name.startsWith(`${namePrefix(sessionId)}`)) {
        this.live.delete(name);
        this.resolved.delete(name);
        void live.catch(() => undefined);
      }
    }
    return containers.length;
  }

  private async container(name: string, request: SessionTarget, image: ResolvedImage, hostPath: string): Promise<Live> {
    for (let attempt = 0; ; attempt++) {
      let live = this.live.get(name);
      if (!live) {
        const started = this.start(name, request, image, hostPath);
        live = started;
        this.live.set(name, started);
        started.catch(() => this.live.get(name) === started && this.live.delete(name));
      }
      const entry = await live;
      // Its command server died (killed from inside): the container is on its way out.
      if (entry.channel && !entry.channel.open && attempt < 2) {
        this.forget(name, entry.id);
        continue;
      }
      this.resolved.set(name, entry);
      return entry;
    }
  }

  private async start(name: string, request: SessionTarget, image: ResolvedImage, hostPath: string): Promise<Live> {
    const { session } = request;
    const [proxy, egressNetwork, cacheVolume] = await Promise.all([
      request.network === 'proxy' ? this.proxies.routeFor(session.ownerId) : undefined,
      request.network === 'egress' ? this.egress.name() : undefined,
      this.cacheVolume(session.ownerId),
    ]);
    const spec = buildSessionSpec(
      {
        name,
        image,
        session,
        workspaceId: request.workspaceId,
        workspaceHostPath: hostPath,
        writable: request.writable,
        proxy,
        egressNetwork,
        cacheVolume,
        caCertsHostPath: this.config.SANDBOX_CA_CERTS,
        idleMs: this.config.SANDBOX_SESSION_IDLE_MS,
        maxLifetimeMs: this.config.SANDBOX_SESSION_MAX_MS,
        now: Date.now(),
      },
      this.config,
    );
    const container = await this.runtime.ensureNamed(spec);
    if (!container.running) {
      // Stopped idle and not yet removed: a fresh one under the same name.
      await this.runtime.removeContainer(container.id);
      return this.start(name, request, image, hostPath);
    }
    this.logger.info(
      { sessionId: session.sessionId, workspaceId: request.workspaceId, image: image.id, network: request.network, created: container.created },
      container.created ? 'session container started' : 'session container adopted',
    );
    const channel = this.config.SANDBOX_COMMAND_SERVER
      ? await this.runtime.openChannel(container.id, container.created ? SERVER_READY_MS.created : SERVER_READY_MS.adopted)
      : undefined;
    void this.runtime.whenStopped(container.id).then(() => {
      channel?.close();
      this.forget(name, container.id);
    });
    if (container.created) void this.removeOthers(session.sessionId, container.id);
    return { id: container.id, runs: container.created ? 0 : 1, ...(channel ? { channel } : {}) };
  }

  /** The session's containers made for other settings (another image, say) are not used again. */
  private async removeOthers(sessionId: string, keep: string): Promise<void> {
    try {
      const others = (await this.runtime.listLabelled(SandboxLabels.session, sessionId)).filter((c) => c.id !== keep);
      const removed = new Set(others.map((c) => c.id));
      // Forget them first: a command of the session may go back to one of those settings.
      for (const [name, live] of this.live) {
        void live.then((l) => removed.has(l.id) && this.live.get(name) === live && this.live.delete(name)).catch(() => undefined);
      }
      await Promise.all(others.map((c) => this.runtime.removeContainer(c.id)));
    } catch (error) {
      this.logger.warn({ err: error, sessionId }, 'could not remove a session\'s older containers');
    }
  }

  private forget(name: string, id: string): void {
    // At once, so the retry that follows does not get the same container back.
    if (this.resolved.get(name)?.id === id) {
      this.live.delete(name);
      this.resolved.delete(name);
    }
    const live = this.live.get(name);
    void live?.then(
      (entry) => entry.id === id && this.live.get(name) === live && this.live.delete(name),
      () => undefined,
    );
    void this.runtime.removeContainer(id);
  }

  private async cacheVolume(ownerId: string): Promise<string | undefined> {
    if (!this.config.SANDBOX_PACKAGE_CACHE) return undefined;
    const volume = cacheVolumeName(ownerId);
    await this.runtime.ensureVolume(volume, { [SandboxLabels.cache]: '1', [SandboxLabels.owner]: ownerId });
    return volume;
  }
}

function namePrefix(sessionId: string): string {
  return `weft-${sessionId}-`;
}

/** Everything the container was made for is in its name: other settings, another container. */
export function sessionContainerName(request: SessionTarget, image: ResolvedImage): string {
  const key = JSON.stringify([request.session.ownerId, request.workspaceId, image.id, image.image, request.network, request.writable]);
  return `${namePrefix(request.session.sessionId)}${createHash('sha256').update(key).digest('hex').slice(0, 12)}`;
}
