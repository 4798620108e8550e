import { cp, readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');

/**
 * Copies an installed package and everything it depends on from this repository's
 * node_modules into `dest/node_modules`, so a test can run it in a sandbox container without a
 * registry (no network there, and npm's cache holds tarballs, not the metadata an install needs).
 */
export async function copyPackageClosure(name: string, dest: string): Promise<void> {
  const topLevel = new Set<string>();
  const seen = new Set<string>();
  const visit = async (pkg: string, from: string) => {
    const dir = await locate(pkg, from);
    if (seen.has(dir)) return;
    seen.add(dir);
    // A nested copy travels inside its parent's folder; only hoisted ones are copied one by one.
    if (dirname(dir.slice(0, dir.length - pkg.length - 1)) === ROOT) topLevel.add(pkg);
    const manifest = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    for (const dep of Object.keys(manifest.dependencies ?? {})) await visit(dep, dir);
  };
  await visit(name, ROOT);
  await Promise.all([...topLevel].map((pkg) => cp(join(ROOT, 'node_modules', pkg), join(dest, 'node_modules', pkg), { recursive: true, dereference: true })));
}

/** Node's lookup: the nearest node_modules/<pkg> from `from` up to the repository root. */
async function locate(pkg: string, from: string): Promise<string> {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', pkg);
    if (await stat(join(candidate, 'package.json')).then(() => true, () => false)) return candidate;
    if (dir === ROOT || dir === dirname(dir)) throw new Error(`${pkg} is not installed (looked up from ${from})`);
  }
}
