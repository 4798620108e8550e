import { afterAll, afterEach, beforeAll } from 'vitest';
import { startNats, type StartedService } from '../../../../test/support/containers';
import type { OciRuntime } from '../docker/runtime-choice';
import { expectHealthy } from './attack-helpers';
import { type KindRuns, removeTestVolumes, runKinds } from './run-kinds';
import { startSandboxHarness, type SandboxHarness } from './sandbox-harness';

export interface AttackSuite {
  /** The OCI runtime the suite's containers run on. */
  readonly runtime: OciRuntime;
  /** The sandbox worker under attack (set once the suite's `beforeAll` has run). */
  readonly sandbox: SandboxHarness;
  /** Each way a run reaches a container, for `describe.each`. */
  readonly kinds: KindRuns[];
}

/**
 * What every attack suite stands on, registered in the calling `describe`: a NATS and a sandbox
 * worker of its own (its warm pool filled first unless `fillPool` is false); after each test the
 * runs' sessions released and the worker checked healthy; at the end its volumes removed. Its
 * containers run on `runtime` (runc unless named: `describe.each(await testRuntimes())`).
 */
export function attackSuite({ fillPool = true, runtime = 'runc' as OciRuntime } = {}): AttackSuite {
  let nats: StartedService | undefined;
  let sandbox: SandboxHarness | undefined;
  const started = () => {
    if (!sandbox) throw new Error('the attack suite has not started (use it inside the describe that called attackSuite)');
    return sandbox;
  };
  const kinds = runKinds(started);

  beforeAll(async () => {
    nats = await startNats();
    sandbox = await startSandboxHarness(nats.url, { SANDBOX_RUNTIME: runtime });
    if (fillPool) await sandbox.pool.whenFull();
  });
  afterEach(() => Promise.all([...kinds.map((runs) => runs.release()), expectHealthy(started())]));
  afterAll(async () => {
    if (sandbox) await removeTestVolumes(sandbox);
    await sandbox?.close();
    await nats?.stop();
  });
  return {
    runtime,
    get sandbox() {
      return started();
    },
    kinds,
  };
}
