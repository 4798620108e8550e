import { spawn } from 'node:child_process';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { SYNC_SKIPPED_NAMES } from '@weft/contracts';
import ignore, { type Ignore } from 'ignore';
import { GIT_TIMEOUT_MS } from './git';

/** Read in every folder: `.gitignore` outside a git repository (git reads its own inside one), `.weftignore` always. */
const GITIGNORE = '.gitignore';
const WEFTIGNORE = '.weftignore';

export interface ProjectEntry {
  /** Relative to the folder, `/`-separated. */
  readonly path: string;
  readonly type: 'directory' | 'file' | 'symlink';
}

/** What an upload of a folder holds, and the top-most paths its ignore rules left out. */
export interface ProjectSelection {
  /** Every folder before what it holds, sorted. */
  readonly entries: readonly ProjectEntry[];
  /** Ignored paths, a folder as `name/` without what it holds. */
  readonly leftOut: readonly string[];
}

/**
 * Which files of a folder are the project, by git's rules: in a git repository, git's own
 * listing (`git ls-files --cached --others --exclude-standard`: tracked files, and untracked
 * ones that no `.gitignore`, `.git/info/exclude` or global excludes file ignores); elsewhere,
 * the `.gitignore` files of the folder and its subfolders, read with the same semantics. A
 * `.weftignore` anywhere leaves out more, and `.git` and `node_modules` never belong.
 */
export class ProjectFiles {
  private constructor(
    private readonly dir: string,
    private readonly inGitRepository: boolean,
    private readonly rules: IgnoreFileRules,
  ) {}

  static async open(dir: string): Promise<ProjectFiles> {
    const probe = await runGit(dir, ['rev-parse', '--is-inside-work-tree']).catch(() => undefined);
    const inGitRepository = probe?.code === 0 && probe.stdout.trim() === 'true';
    return new ProjectFiles(dir, inGitRepository, new IgnoreFileRules(dir, inGitRepository ? [WEFTIGNORE] : [GITIGNORE, WEFTIGNORE]));
  }

  get usesGit(): boolean {
    return this.inGitRepository;
  }

  async select(): Promise<ProjectSelection> {
    return this.inGitRepository ? this.selectFromGit() : this.selectByWalking();
  }

  /**
   * Those of `paths` (relative; a folder written `name/`) that the rules ignore, whether or not
   * they exist here: what a workspace holds that the folder does not is kept, not deleted, and
   * a patch's ignored paths are not written.
   */
  async ignored(paths: readonly string[]): Promise<Set<string>> {
    const ignored = new Set<string>();
    for (const path of paths) {
      if (path.split('/').some((name) => SYNC_SKIPPED_NAMES.includes(name)) || (await this.rules.ignores(path))) ignored.add(path);
    }
    const rest = paths.filter((path) => !ignored.has(path));
    if (!this.inGitRepository || rest.length === 0) return ignored;
    const result = await runGit(this.dir, ['check-ignore', '--stdin', '-z'], rest.join('\0'));
    // 1: none of them is ignored.
    if (result.code !== 0 && result.code !== 1) throw new Error(`git check-ignore failed in ${this.dir}: ${result.stderr.trim()}`);
    for (const path of result.stdout.split('\0')) if (path !== '') ignored.add(path);
    return ignored;
  }

  private async selectFromGit(): Promise<ProjectSelection> {
    const listed = await this.gitList(['ls-files', '--cached', '--others', '--exclude-standard', '-z']);
    const leftOut = await this.gitList(['ls-files', '--others', '--ignored', '--exclude-standard', '--directory', '-z']);
    const entries = new Map<string, ProjectEntry>();
    for (const path of listed) {
      if (path.split('/').some((name) => SYNC_SKIPPED_NAMES.includes(name))) continue;
      if (await this.rules.ignores(path)) {
        leftOut.push(path);
        continue;
      }
      const stats = await lstat(join(this.dir, path)).catch(() => undefined);
      if (!stats) continue; // tracked, but deleted here
      for (let parent = posix.dirname(path); parent !== '.'; parent = posix.dirname(parent)) {
        entries.set(parent, { path: parent, type: 'directory' });
      }
      if (stats.isDirectory()) {
        // A submodule: git lists it as one path; its own listing says what it holds.
        entries.set(path, { path, type: 'directory' });
        const inner = await (await ProjectFiles.open(join(this.dir, path))).select();
        for (const entry of inner.entries) entries.set(`${path}/${entry.path}`, { ...entry, path: `${path}/${entry.path}` });
        leftOut.push(...inner.leftOut.map((ignored) => `${path}/${ignored}`));
        continue;
      }
      const type = stats.isSymbolicLink() ? 'symlink' : stats.isFile() ? 'file' : undefined;
      if (type) entries.set(path, { path, type });
    }
    return { entries: [...entries.values()].sort(byPath), leftOut: leftOut.sort() };
  }

  private async selectByWalking(): Promise<ProjectSelection> {
    const entries: ProjectEntry[] = [];
    const leftOut: string[] = [];
    /** Walks a folder; answers whether all it held was left out (git would list nothing of it). */
    const walk = async (prefix: string): Promise<boolean> => {
      let kept = 0;
      let ignored = 0;
      for (const name of (await readdir(join(this.dir, prefix))).sort()) {
        if (SYNC_SKIPPED_NAMES.includes(name)) continue;
        const path = prefix === '' ? name : `${prefix}/${name}`;
        const stats = await lstat(join(this.dir, path));
        const type = stats.isDirectory() ? 'directory' : stats.isSymbolicLink() ? 'symlink' : stats.isFile() ? 'file' : undefined;
        if (!type) continue; // sockets, fifos, devices: never uploaded
        const asked = type === 'directory' ? `${path}/` : path;
        if (await this.rules.ignores(asked)) {
          leftOut.push(asked);
          ignored += 1;
          continue;
        }
        const at = entries.push({ path, type }) - 1;
        const named = leftOut.length;
        if (type === 'directory' && (await walk(path))) {
          // Such as .pytest_cache, whose own .gitignore says `*`: gone whole, as in git's listing,
          // and named as a folder rather than by what it held.
          entries.splice(at);
          leftOut.splice(named);
          leftOut.push(asked);
          ignored += 1;
          continue;
        }
        kept += 1;
      }
      return ignored > 0 && kept === 0;
    };
    await walk('');
    return { entries: entries.sort(byPath), leftOut };
  }

  private async gitList(args: string[]): Promise<string[]> {
    const result = await runGit(this.dir, args);
    if (result.code !== 0) throw new Error(`git ${args[0]} failed in ${this.dir}: ${result.stderr.trim()}`);
    return result.stdout.split('\0').filter((path) => path !== '');
  }
}

/**
 * Ignore files read as git reads `.gitignore`: each applies to the paths below its folder, a
 * deeper file's verdict wins over a shallower one's, the last matching line wins within a file,
 * and nothing below an ignored folder can be brought back.
 */
class IgnoreFileRules {
  private readonly byFolder = new Map<string, Promise<Ignore | undefined>>();
  private readonly verdicts = new Map<string, boolean>();

  constructor(
    private readonly dir: string,
    private readonly fileNames: readonly string[],
  ) {}

  /** `path` relative, a folder ending in `/`. */
  async ignores(path: string): Promise<boolean> {
    const known = this.verdicts.get(path);
    if (known !== undefined) return known;
    const trimmed = path.endsWith('/') ? path.slice(0, -1) : path;
    const parent = posix.dirname(trimmed);
    const verdict = (parent !== '.' && (await this.ignores(`${parent}/`))) || (await this.matched(path, trimmed));
    this.verdicts.set(path, verdict);
    return verdict;
  }

  private async matched(path: string, trimmed: string): Promise<boolean> {
    const folders = ['', ...ancestors(trimmed)].reverse(); // deepest first
    for (const folder of folders) {
      const rules = await this.rulesOf(folder);
      if (!rules) continue;
      const result = rules.test(folder === '' ? path : path.slice(folder.length + 1));
      if (result.ignored) return true;
      if (result.unignored) return false;
    }
    return false;
  }

  private rulesOf(folder: string): Promise<Ignore | undefined> {
    let rules = this.byFolder.get(folder);
    if (!rules) {
      rules = this.read(folder);
      this.byFolder.set(folder, rules);
    }
    return rules;
  }

  private async read(folder: string): Promise<Ignore | undefined> {
    const texts = await Promise.all(this.fileNames.map((name) => readFile(join(this.dir, folder, name), 'utf8').catch(() => '')));
    const text = texts.join('\n');
    return text.trim() === '' ? undefined : ignore().add(text);
  }
}

/** `a/b/c` → `a`, `a/b`: the folders above a path, outermost first. */
function ancestors(path: string): string[] {
  const names = path.split('/').slice(0, -1);
  return names.map((_, i) => names.slice(0, i + 1).join('/'));
}

function byPath(a: ProjectEntry, b: ProjectEntry): number {
  return a.path < b.path ? -1 : a.path > b.path ? 1 : 0;
}

interface GitOutput {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function runGit(cwd: string, args: string[], input = ''): Promise<GitOutput> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', args, { cwd, stdio: ['pipe', 'pipe', 'pipe'], timeout: GIT_TIMEOUT_MS });
    const stdout: Buffer[] = [];
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout: Buffer.concat(stdout).toString(), stderr }));
    child.stdin.on('error', () => undefined); // git may exit before reading it all; `close` reports why
    child.stdin.end(input);
  });
}
