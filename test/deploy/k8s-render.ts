import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseAllDocuments } from 'yaml';

const run = promisify(execFile);

/** The repository's Kustomize tree. */
export const K8S_DIR = resolve(__dirname, '../../deploy/k8s');

/** `kubectl` from PATH, or WEFT_KUBECTL (e.g. Debian's 1.20 unpacked elsewhere, to test it). */
export const KUBECTL = process.env.WEFT_KUBECTL ?? 'kubectl';

/** One rendered Kubernetes object, as plain JSON. */
export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Says which kubectl renders, or throws a message that says how to get one. */
export async function kubectlVersion(): Promise<string> {
  try {
    const { stdout } = await run(KUBECTL, ['version', '--client'], { timeout: 30_000 });
    return stdout.trim();
  } catch (err) {
    throw new Error(
      `kubectl (${KUBECTL}) does not run: install it (Debian: apt-get install kubernetes-client; .ci/run does) ` +
        `or point WEFT_KUBECTL at one. ${(err as Error).message}`,
    );
  }
}

/** A scratch copy of deploy/k8s, with each overlay's secrets.env written by make-secrets.sh as a user would. */
export async function scratchCopy(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'weft-k8s-'));
  // Never a developer's own secrets.env: the copy gets fresh ones.
  await cp(K8S_DIR, dir, { recursive: true, filter: (source) => !source.endsWith('/secrets.env') });
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function makeSecrets(overlayDir: string): Promise<void> {
  await run('bash', [join(K8S_DIR, 'make-secrets.sh'), overlayDir], { timeout: 30_000 });
}

/** `kubectl kustomize <dir>`, parsed; a render that fails throws with kustomize's own message. */
export async function render(dir: string): Promise<K8sObject[]> {
  let stdout: string;
  try {
    ({ stdout } = await run(KUBECTL, ['kustomize', dir], { timeout: 60_000, maxBuffer: 32 * 1024 * 1024 }));
  } catch (err) {
    throw new Error(`kubectl kustomize ${dir} failed: ${(err as { stderr?: string }).stderr ?? (err as Error).message}`);
  }
  return parseAllDocuments(stdout)
    .map((document) => {
      if (document.errors.length > 0) throw new Error(`kubectl kustomize ${dir} printed bad YAML: ${document.errors[0]?.message}`);
      return document.toJSON() as K8sObject | null;
    })
    .filter((object): object is K8sObject => object !== null);
}
