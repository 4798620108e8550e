import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitSource } from '@weft/contracts';
import { redactGitUrl } from './git-source-policy';

/** stderr kept for the error message; a clone's progress output is not needed. */
const MAX_OUTPUT_BYTES = 64 * 1024;

/** `git clone` failed, timed out, or was not allowed to start; the message is git's. */
export class CloneFailed extends Error {}

export interface CloneOptions {
  /** file:// is refused by git unless this is set (the admin listed `file`). */
  allowFile: boolean;
  timeoutMs: number;
}

/**
 * The one place that runs git: no shell, no hooks, no `ext::` transport, no prompts, no system
 * or global config, no redirects (the host list is checked on the URL given, and a redirect
 * could lead anywhere the tools worker can reach); a shallow clone of one branch, then `.git`
 * removed so only files remain.
 */
export class GitCloner {
  constructor(private readonly gitBinary = 'git') {}

  async clone({ url, ref }: GitSource, destination: string, options: CloneOptions): Promise<void> {
    const args = [
      '-c', 'core.hooksPath=/dev/null',
      '-c', 'protocol.ext.allow=never',
      '-c', `protocol.file.allow=${options.allowFile ? 'always' : 'never'}`,
      '-c', 'core.symlinks=true',
      '-c', 'submodule.recurse=false',
      '-c', 'http.followRedirects=false',
      'clone', '--depth', '1', '--no-tags', '--single-branch', '--quiet',
      ...(ref ? ['--branch', ref] : []),
      '--', url, destination,
    ];
    await new Promise<void>((resolve, reject) => {
      execFile(
        this.gitBinary,
        args,
        {
          timeout: options.timeoutMs,
          killSignal: 'SIGKILL',
          maxBuffer: MAX_OUTPUT_BYTES,
          env: {
            PATH: process.env['PATH'] ?? '/usr/bin:/bin',
            GIT_TERMINAL_PROMPT: '0',
            GIT_CONFIG_NOSYSTEM: '1',
            GIT_CONFIG_GLOBAL: '/dev/null',
            GIT_ASKPASS: '/bin/false',
            GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
            GIT_LFS_SKIP_SMUDGE: '1',
          },
        },
        (error, _stdout, stderr) => {
          if (!error) return resolve();
          // git names the folder it clones into: the server's staging path, not for the uploader.
          const lastLine = String(stderr).trim().split('\n').at(-1);
          const said = lastLine === undefined || lastLine === '' ? 'git exited with an error' : lastLine;
          const reason = error.killed ? `timed out after ${options.timeoutMs} ms` : explain(said.replaceAll(destination, 'the workspace'));
          // Not execFile's error as the cause: its message is the whole command line.
          reject(new CloneFailed(`git clone of ${redactGitUrl(url)} failed: ${redactGitUrl(reason)}`));
        },
      );
    });
    await rm(join(destination, '.git'), { recursive: true, force: true });
  }
}

/** git names a refused redirect by its status alone. */
function explain(said: string): string {
  const redirect = /returned error: (30[12378])\b/.exec(said);
  if (!redirect) return said;
  return `the server answered ${redirect[1]}, a redirect, which is not followed: give the repository's own URL on an allowed host (${said})`;
}
