import { assertUnreachable, type ExecRequest, type ExecResult, type ExecSession } from '@weft/contracts';
import { expect } from 'vitest';
import { SandboxLabels } from '../docker/container-runtime';
import { waitFor } from './attack-helpers';
import type { SandboxHarness } from './sandbox-harness';

/**
 * Where a run happens: a throwaway container (pooled for a snippet, cold otherwise), or the
 * long-lived container of a session, which later commands of that session reuse.
 */
export type RunKind = 'throwaway' | 'session';

type CodeRequest = Extract<ExecRequest, { mode: 'code' }>;

let sessions = 0;

/**
 * An attack's requests, run as one kind of run. For `session` every request of a test goes to
 * that test's own fresh session: a snippet becomes a command of it, in a scratch workspace
 * mounted writable (the attacker's best case). `release()` after each test removes the
 * session's containers, so `expectHealthy` sees only pooled ones.
 */
export class KindRuns {
  private session?: ExecSession;
  private scratch?: string;
  /** The last request sent, for `expectNextRunWorks`. */
  private last?: ExecRequest;
  private readonly others: KindRuns[] = [];

  constructor(
    readonly kind: RunKind,
    private readonly sandbox: () => SandboxHarness,
    readonly ownerId = testOwners()[0],
  ) {}

  get title(): string {
    return this.kind === 'session' ? "a session's container" : 'a throwaway container (a snippet: a pooled one)';
  }

  async exec(request: ExecRequest): Promise<ExecResult> {
    this.last = await this.request(request);
    // A throwaway snippet goes to the warm pool's one-shot server, not to a cold start of an empty pool.
    if (this.kind === 'throwaway' && this.last.mode === 'code' && !this.last.workspaceId && this.last.network !== 'egress') await this.sandbox().pool.whenFull();
    return this.sandbox().exec(this.last);
  }

  /** `request` as this kind sends it. */
  async request(request: ExecRequest): Promise<ExecRequest> {
    if (this.kind === 'throwaway') return request;
    this.session ??= newTestSession(this.ownerId);
    if (request.mode === 'command') return { ...request, session: this.session };
    if (request.stdin !== undefined) throw new Error('a session command has no stdin');
    this.scratch ??= await this.sandbox().newWorkspace();
    const { timeoutMs, network } = request;
    return {
      mode: 'command',
      workspaceId: request.workspaceId ?? this.scratch,
      command: asCommand(request),
      writable: true,
      session: this.session,
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(network ? { network } : {}),
    };
  }

  /**
   * Runs of someone else, of the same kind: another throwaway run is just that; for sessions,
   * another session of the same user, then one of another user.
   */
  neighbours(): KindRuns[] {
    if (this.kind === 'throwaway') return [this];
    const [, otherOwner] = testOwners();
    return [this.neighbour(this.ownerId), this.neighbour(otherOwner)];
  }

  /** Another session (of `ownerId`), or another throwaway run. */
  neighbour(ownerId = this.ownerId): KindRuns {
    if (this.kind === 'throwaway') return this;
    const other = new KindRuns('session', this.sandbox, ownerId);
    this.others.push(other);
    return other;
  }

  /** The container this kind's runs use: the test's session's, or an idle pooled one. */
  async containerId(): Promise<string> {
    const sandbox = this.sandbox();
    if (this.kind === 'throwaway') await sandbox.pool.whenFull();
    else await this.exec({ mode: 'code', language: 'bash', code: 'true' });
    const mine = (await sandbox.containers()).filter((c) =>
      this.kind === 'session' ? c.Labels[SandboxLabels.session] === this.session?.sessionId : c.Labels[SandboxLabels.pool] === '1',
    );
    if (!mine[0]) throw new Error(`no container for ${this.title}`);
    return mine[0].Id;
  }

  /** After an attack: the next run like the last one (for a session, its next command) works. */
  async expectNextRunWorks(): Promise<ExecResult> {
    const last = this.last ?? { mode: 'code', language: 'bash', code: 'true' };
    const next = await this.sandbox().exec(
      last.mode === 'command'
        ? { ...last, command: 'echo alive', timeoutMs: undefined }
        : { ...last, language: 'bash', code: 'echo alive', timeoutMs: undefined },
    );
    expect(next).toMatchObject({ exitCode: 0, stdout: 'alive\n', timedOut: false });
    return next;
  }

  /** Removes the containers of this test's sessions (the gateway does so when a session is deleted). */
  async release(): Promise<void> {
    const released = [this.session, ...this.others.map((other) => other.session)].filter((s) => s !== undefined);
    await Promise.all(released.map((s) => this.sandbox().release(s.sessionId)));
    this.session = undefined;
    this.scratch = undefined;
    this.last = undefined;
    this.others.length = 0;
  }
}

/** One runner per kind, for `describe.each(...)('... in $title', (runs) => ...)`. */
export function runKinds(sandbox: () => SandboxHarness): KindRuns[] {
  return [new KindRuns('throwaway', sandbox), new KindRuns('session', sandbox)];
}

function newTestSession(ownerId = testOwners()[0]): ExecSession {
  return { sessionId: `ses_attack${process.pid}x${String(++sessions).padStart(3, '0')}`, ownerId };
}

/** Two users of this test process; their package cache volumes go with `removeTestVolumes`. */
export function testOwners(): [string, string] {
  return [`usr_atk${process.pid}a`, `usr_atk${process.pid}b`];
}

/** The package cache volumes that sessions of `testOwners()` got. */
export async function removeTestVolumes(sandbox: SandboxHarness): Promise<void> {
  await removeVolumesOf(sandbox, testOwners());
}

/**
 * The package cache volumes of these users, once the worker's checks of them are done (a check's
 * container holds the volume until it is removed, just after the check).
 */
export async function removeVolumesOf(sandbox: SandboxHarness, owners: string[]): Promise<void> {
  await Promise.all(owners.map((owner) => sandbox.cacheQuota.settled(owner)));
  // One query per owner: the engine ANDs label filters.
  const lists = await Promise.all(
    owners.map((owner) => sandbox.docker.listVolumes({ filters: { label: [`${SandboxLabels.owner}=${owner}`] } })),
  );
  await Promise.all(
    lists.flatMap(({ Volumes }) => Volumes ?? []).map((volume) =>
      waitFor(`volume ${volume.Name} to be free`, () =>
        sandbox.docker.getVolume(volume.Name).remove().then(
          () => true,
          (error: { statusCode?: number }) => {
            if (error.statusCode !== 409) throw error;
            return false;
          },
        ),
      ),
    ),
  );
}

function asCommand(request: CodeRequest): string {
  const quoted = `'${request.code.replaceAll("'", `'\\''`)}'`;
  switch (request.language) {
    case 'bash':
      return request.code;
    case 'python':
      return `python3 -c ${quoted}`;
    case 'node':
      return `node -e ${quoted}`;
    case 'lua':
      return `lua5.4 -e ${quoted}`;
    default:
      return assertUnreachable(request.language);
  }
}
