import { lstat, realpath, stat } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import type { SandboxConfig } from '@weft/config';
import { AppError, ErrorCode } from '@weft/contracts';
import type { ContainerRuntime } from '../docker/container-runtime';

export type LocatorConfig = Pick<SandboxConfig, 'WORKSPACES_DIR' | 'WORKSPACES_HOST_DIR' | 'WORKSPACES_VOLUME'>;

export interface LocatedWorkspace {
  /** The workspace's path as the engine's host sees it: the bind source. */
  hostPath: string;
  /** Normalised cwd relative to the workspace root, '' for the root itself. */
  cwd: string;
}

/**
 * Finds one workspace on this process's view of the volume and translates it to the host path
 * the engine needs (Docker-out-of-Docker resolves bind sources on the host).
 */
export class WorkspaceLocator {
  private hostDir?: string;

  constructor(
    private readonly config: LocatorConfig,
    private readonly runtime: Pick<ContainerRuntime, 'volumeMountpoint'>,
  ) {}

  async locate(workspaceId: string, cwd?: string): Promise<LocatedWorkspace> {
    const root = this.localRoot(workspaceId);
    // lstat: the engine follows a symlinked bind source, so a root that is a link is refused.
    if (!(await isRealDirectory(root))) {
      throw new AppError(ErrorCode.WorkspaceNotFound, `Workspace ${workspaceId} does not exist`, { workspaceId });
    }
    const rel = normaliseCwd(cwd);
    const resolved = rel ? await resolveInside(root, rel) : '';
    return { hostPath: posix.join(await this.resolveHostDir(), workspaceId), cwd: resolved };
  }

  /** The workspace's folder as this process sees it (not the engine's host path). */
  localRoot(workspaceId: string): string {
    return join(this.config.WORKSPACES_DIR, workspaceId);
  }

  private async resolveHostDir(): Promise<string> {
    if (this.hostDir === undefined) {
      const { WORKSPACES_HOST_DIR, WORKSPACES_VOLUME, WORKSPACES_DIR } = this.config;
      this.hostDir =
        WORKSPACES_HOST_DIR ??
        (WORKSPACES_VOLUME ? await this.runtime.volumeMountpoint(WORKSPACES_VOLUME) : WORKSPACES_DIR);
    }
    return this.hostDir;
  }
}

/** A cwd must be relative and stay inside the workspace; returns it normalised. */
export function normaliseCwd(cwd: string | undefined): string {
  if (cwd === undefined || cwd === '' || cwd === '.') return '';
  const normal = posix.normalize(cwd).replace(/\/+$/, '');
  if (cwd.includes('\0') || posix.isAbsolute(cwd) || normal === '..' || normal.startsWith('../')) {
    throw outside(cwd);
  }
  return normal === '.' ? '' : normal;
}

/**
 * Follows symlinks so a link inside the workspace cannot point the run elsewhere; returns the
 * resolved path relative to the root, which means the same thing inside the container.
 */
async function resolveInside(root: string, rel: string): Promise<string> {
  const realRoot = await realpath(root);
  const target = await realpath(join(root, rel)).catch(() => undefined);
  if (target === undefined || !(await isDirectory(target))) {
    throw new AppError(ErrorCode.NotADirectory, `cwd ${rel} is not a directory in the workspace`, { cwd: rel });
  }
  const fromRoot = relative(realRoot, target);
  if (fromRoot === '..' || fromRoot.startsWith(`..${sep}`)) throw outside(rel);
  return fromRoot.split(sep).join('/');
}

async function isRealDirectory(path: string): Promise<boolean> {
  return lstat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

async function isDirectory(path: string): Promise<boolean> {
  return stat(path).then(
    (s) => s.isDirectory(),
    () => false,
  );
}

function outside(cwd: string): AppError {
  return new AppError(ErrorCode.PathOutsideWorkspace, `cwd ${cwd} leaves the workspace`, { cwd });
}
