import { createHash } from 'node:crypto';

/**
 * Commands that run a `package.json` script: an allowed `npm run test` runs whatever the `test`
 * script says, and the agent can edit that file. The permission question shows the script's text,
 * and `allow_always` binds its rule to that text (`Bash(npm run test #script:<digest>)`), so a
 * changed script is asked about again.
 */

type Word = string | null;

export interface ScriptInvocation {
  manager: 'npm' | 'pnpm' | 'yarn';
  /** The script's name in `package.json`. */
  script: string;
  /** An option picks another package (`-w`, `--prefix`, `--filter`, `--cwd`): its package.json is not read. */
  otherPackage: boolean;
}

/** Options that make the package manager run another package's script; the first group takes a value. */
const OTHER_PACKAGE = /^(?:(-w|--workspace|-C|--prefix|--dir|--cwd|-F|--filter)|--workspaces|-ws|-r|--recursive|--include-workspace-root)(=|$)/;

/** What the workspace's root `package.json` says, read for one permission check. */
export type PackageScripts = { kind: 'read'; scripts: Readonly<Record<string, string>> } | { kind: 'none'; why: string };

/** npm's aliases of `run-script`, and the scripts it runs as commands of their own. */
const NPM_RUN = new Set(['run', 'run-script', 'rum', 'urn']);
const NPM_DIRECT: Readonly<Record<string, string>> = { test: 'test', t: 'test', tst: 'test', start: 'start', stop: 'stop', restart: 'restart' };
/** pnpm and yarn commands that are not scripts: anything else as a first operand runs the script of that name. */
const PNPM_BUILTIN = new Set(['add', 'install', 'i', 'remove', 'rm', 'update', 'up', 'exec', 'dlx', 'create', 'publish', 'list', 'ls', 'outdated', 'why', 'store', 'config', 'link', 'unlink', 'audit', 'import', 'rebuild', 'prune', 'fetch', 'env', 'setup', 'init', 'pack', 'patch', 'server', 'deploy', 'licenses', 'root', 'bin']);
const YARN_BUILTIN = new Set(['add', 'install', 'remove', 'upgrade', 'up', 'exec', 'dlx', 'create', 'publish', 'info', 'list', 'why', 'config', 'link', 'unlink', 'audit', 'init', 'pack', 'cache', 'global', 'workspace', 'workspaces', 'set', 'plugin', 'node', 'bin', 'version', 'npm', 'constraints', 'dedupe', 'explain', 'patch', 'rebuild', 'search', 'stage', 'import']);

/** The script a command runs, when it is one of npm's, pnpm's or yarn's ways of running one. */
export function scriptInvocation(words: readonly Word[]): ScriptInvocation | undefined {
  const [program, ...rest] = words;
  // Options are skipped (`npm -s run x`), with the value of one that picks another package.
  const operands: string[] = [];
  let otherPackage = false;
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i];
    if (word === undefined) continue;
    if (word === null) otherPackage = true;
    else if (!word.startsWith('-')) operands.push(word);
    else {
      const picks = OTHER_PACKAGE.exec(word);
      if (!picks) continue;
      otherPackage = true;
      if (picks[1] && picks[2] === '') i++;
    }
  }
  const [first, second] = operands;
  if (first === undefined) return undefined;
  const run = (manager: ScriptInvocation['manager'], script: string | undefined) =>
    script === undefined ? undefined : { manager, script, otherPackage };
  if (program === null || program === undefined) return undefined;
  switch (program) {
    case 'npm':
      return NPM_RUN.has(first) ? run('npm', second) : run('npm', Object.hasOwn(NPM_DIRECT, first) ? NPM_DIRECT[first] : undefined);
    case 'pnpm':
      if (first === 'run' || first === 'run-script') return run('pnpm', second);
      if (first === 't' || first === 'tst') return run('pnpm', 'test');
      return PNPM_BUILTIN.has(first) ? undefined : run('pnpm', first);
    case 'yarn':
      if (first === 'run') return run('yarn', second);
      return YARN_BUILTIN.has(first) ? undefined : run('yarn', first);
    default:
      return undefined;
  }
}

/** The texts a script invocation runs: its `pre` and `post` scripts around it, as npm runs them. */
export function scriptTexts(scripts: Readonly<Record<string, string>>, name: string): Array<{ name: string; text: string }> {
  return [`pre${name}`, name, `post${name}`].flatMap((n) => (Object.hasOwn(scripts, n) ? [{ name: n, text: scripts[n] as string }] : []));
}

/** A short fingerprint of what the invocation runs; undefined when the script does not exist. */
export function scriptDigest(scripts: Readonly<Record<string, string>>, name: string): string | undefined {
  if (!Object.hasOwn(scripts, name)) return undefined;
  return createHash('sha256').update(JSON.stringify(scriptTexts(scripts, name))).digest('hex').slice(0, 16);
}

/** Lines for the permission question and the audit: what the command will actually run. */
export function describeInvocation(command: string, invocation: ScriptInvocation, found: PackageScripts, cwdChanged: boolean): string {
  const quoted = JSON.stringify(invocation.script);
  if (cwdChanged || invocation.otherPackage) return `${command} runs the ${quoted} script of a package.json other than the workspace's own, which was not read`;
  if (found.kind === 'none') return `${command} runs the ${quoted} script of package.json, which could not be read (${found.why})`;
  const texts = scriptTexts(found.scripts, invocation.script);
  if (!Object.hasOwn(found.scripts, invocation.script)) return `${command}: package.json has no ${quoted} script`;
  return `${command} runs package.json's ${texts.map((t) => `${JSON.stringify(t.name)} script: ${t.text}`).join(', then ')}`;
}

/** Parses `package.json`'s scripts; anything that is not an object of strings reads as none. */
export function parsePackageScripts(text: string): PackageScripts {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { kind: 'none', why: 'not valid JSON' };
  }
  const scripts = json && typeof json === 'object' ? (json as { scripts?: unknown }).scripts : undefined;
  if (scripts === undefined) return { kind: 'read', scripts: {} };
  if (!scripts || typeof scripts !== 'object' || Array.isArray(scripts)) return { kind: 'none', why: '"scripts" is not an object' };
  const entries = Object.entries(scripts).filter((e): e is [string, string] => typeof e[1] === 'string');
  return { kind: 'read', scripts: Object.fromEntries(entries) };
}
