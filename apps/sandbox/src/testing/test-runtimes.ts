import { execFileSync } from 'node:child_process';
import type { OciRuntime } from '../docker/runtime-choice';

/**
 * The runtimes the attack suites run under: WEFT_SANDBOX_TEST_RUNTIMES (`runc`, `runsc`,
 * `runc,runsc`; default `runc`), less runsc where the engine does not list it. runsc is asked for,
 * not taken whenever listed: not every suite passes on Debian's runsc release yet, and a pass
 * costs minutes (docs/sandbox.md: gVisor). Synchronous, for `describe.each` at a file's top level.
 */
export function testRuntimes(): OciRuntime[] {
  const asked = (process.env.WEFT_SANDBOX_TEST_RUNTIMES ?? 'runc').split(',').map((name) => name.trim());
  const wantsGvisor = asked.includes('runsc') && engineRuntimes().includes('runsc');
  return [...(asked.includes('runc') ? (['runc'] as const) : []), ...(wantsGvisor ? (['runsc'] as const) : [])];
}

/** The runtimes the engine lists. */
export function engineRuntimes(): string[] {
  return Object.keys(JSON.parse(execFileSync('docker', ['info', '--format', '{{json .Runtimes}}'], { encoding: 'utf8' })) as object);
}

/** Each runtime with its title, for `describe.each(...)('... on $title', ({ runtime }) => ...)`. */
export function runtimeCases(): Array<{ runtime: OciRuntime; title: string }> {
  return testRuntimes().map((runtime) => ({ runtime, title: runtime === 'runsc' ? 'runsc (gVisor)' : 'runc' }));
}
