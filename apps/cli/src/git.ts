import { spawn } from 'node:child_process';
import { UsageError } from './errors';

/** git works on local files only here; a minute is far more than applying a patch takes. */
export const GIT_TIMEOUT_MS = 60_000;

export interface GitResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** What `weft apply` asks of git, in one folder; a fake in unit tests, real git in integration tests. */
export interface GitPort {
  /** The folder's path inside its repository (`''` at the top, `pkg/` below it); undefined outside a repository. */
  repositoryPrefix(): Promise<string | undefined>;
  /** Tracked files under the folder with changes that are not committed (`git status --porcelain`). */
  uncommittedChanges(): Promise<string[]>;
  /** `git apply [--check] [--reverse] [--directory=…] [--exclude=…]` with the patch on stdin. */
  apply(patch: string, options: GitApplyOptions): Promise<GitResult>;
}

export interface GitApplyOptions {
  readonly check?: boolean;
  readonly reverse?: boolean;
  readonly directory?: string;
  /** Paths of the patch (relative to the folder) left unwritten. */
  readonly exclude?: readonly string[];
}

/** The `git` on PATH, run in `cwd`. */
export class GitCli implements GitPort {
  constructor(private readonly cwd: string) {}

  async repositoryPrefix(): Promise<string | undefined> {
    const result = await this.run(['rev-parse', '--show-prefix']);
    return result.code === 0 ? result.stdout.trim() : undefined;
  }

  async uncommittedChanges(): Promise<string[]> {
    const result = await this.run(['status', '--porcelain', '--untracked-files=no', '--', '.']);
    if (result.code !== 0) throw new UsageError(`git status failed in ${this.cwd}: ${result.stderr.trim()}`);
    return result.stdout.split('\n').filter((line) => line.trim() !== '').map((line) => line.slice(3));
  }

  apply(patch: string, options: GitApplyOptions): Promise<GitResult> {
    const args = ['apply'];
    if (options.check) args.push('--check');
    if (options.reverse) args.push('--reverse');
    if (options.directory) args.push(`--directory=${options.directory}`);
    // git matches --exclude against the path with --directory's prefix, as a glob.
    for (const path of options.exclude ?? []) args.push(`--exclude=${escapeGlob(`${options.directory ?? ''}${path}`)}`);
    return this.run(args, patch);
  }

  private run(args: string[], input = ''): Promise<GitResult> {
    return new Promise((resolve, reject) => {
      const child = spawn('git', args, { cwd: this.cwd, stdio: ['pipe', 'pipe', 'pipe'], timeout: GIT_TIMEOUT_MS });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', (error: NodeJS.ErrnoException) => {
        reject(error.code === 'ENOENT' ? new UsageError('git is not installed (or not on PATH): weft apply uses `git apply`') : error);
      });
      child.on('close', (code, signal) => {
        if (signal) reject(new UsageError(`git ${args[0]} was stopped (${signal}) after ${GIT_TIMEOUT_MS / 1000} s`));
        else resolve({ code: code ?? 1, stdout, stderr });
      });
      child.stdin.on('error', () => undefined); // git may exit before reading it all; `close` reports why
      child.stdin.end(input);
    });
  }
}

function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]]/g, (char) => `\\${char}`);
}
