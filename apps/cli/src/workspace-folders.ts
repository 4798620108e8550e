import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import type { CliEnv } from './config-store';

/** Enough for years of uploads; the oldest are forgotten first. */
export const MAX_REMEMBERED_WORKSPACES = 1000;

/** `gateway` and `userId`: whose workspace it is; uploads remembered before they were recorded have neither. */
const uploadSchema = z.object({ dir: z.string(), uploadedAt: z.string(), gateway: z.string().optional(), userId: z.string().optional() });
const fileSchema = z.object({ workspaces: z.record(z.string(), uploadSchema) });
type Uploads = Record<string, z.infer<typeof uploadSchema>>;

/** The gateway (its URL) and the user a workspace belongs to. */
export interface WorkspaceOwner {
  readonly gateway: string;
  readonly userId: string;
}

/** A workspace uploaded (or last synced) from a folder. */
export interface FolderUpload {
  readonly workspaceId: string;
  readonly uploadedAt: string;
  readonly owner?: WorkspaceOwner;
}

/**
 * Which local folder each workspace was uploaded from, on which gateway and by which user: so
 * `weft apply` knows where the agent's changes go, and `weft run` in the same folder syncs that
 * workspace instead of uploading another: `$XDG_STATE_HOME/weft/workspaces.json` (default
 * `~/.local/state`).
 */
export class WorkspaceFolders {
  readonly path: string;

  constructor(
    env: CliEnv,
    private readonly maxRemembered = MAX_REMEMBERED_WORKSPACES,
  ) {
    const base = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
    this.path = join(base, 'weft', 'workspaces.json');
  }

  async remember(workspaceId: string, dir: string, at: Date = new Date(), owner?: WorkspaceOwner): Promise<void> {
    const uploads = await this.load();
    uploads[workspaceId] = { dir, uploadedAt: at.toISOString(), ...(owner ? { gateway: owner.gateway, userId: owner.userId } : {}) };
    const kept = Object.entries(uploads)
      .sort(([, a], [, b]) => b.uploadedAt.localeCompare(a.uploadedAt))
      .slice(0, this.maxRemembered);
    await this.save(Object.fromEntries(kept));
  }

  async folderOf(workspaceId: string): Promise<string | undefined> {
    return (await this.load())[workspaceId]?.dir;
  }

  /** The workspace uploaded from `dir` most recently. */
  async latestFrom(dir: string): Promise<string | undefined> {
    const [newest] = Object.entries(await this.load())
      .filter(([, upload]) => upload.dir === dir)
      .sort(([, a], [, b]) => b.uploadedAt.localeCompare(a.uploadedAt));
    return newest?.[0];
  }

  /** Every workspace uploaded from `dir`, newest first. */
  async uploadsFrom(dir: string): Promise<FolderUpload[]> {
    return Object.entries(await this.load())
      .filter(([, upload]) => upload.dir === dir)
      .sort(([, a], [, b]) => b.uploadedAt.localeCompare(a.uploadedAt))
      .map(([workspaceId, { uploadedAt, gateway, userId }]) => ({ workspaceId, uploadedAt, ...(gateway && userId ? { owner: { gateway, userId } } : {}) }));
  }

  async forget(workspaceId: string): Promise<void> {
    const uploads = await this.load();
    if (!(workspaceId in uploads)) return;
    delete uploads[workspaceId];
    await this.save(uploads);
  }

  private async load(): Promise<Uploads> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw error;
    }
    const parsed = fileSchema.safeParse(parseJson(text));
    // A file edited by hand into something else only loses where old uploads came from.
    return parsed.success ? parsed.data.workspaces : {};
  }

  private async save(workspaces: Uploads): Promise<void> {
    await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
    const tmp = `${this.path}.${process.pid}.tmp`;
    await writeFile(tmp, `${JSON.stringify({ workspaces }, null, 2)}\n`, { mode: 0o600 });
    await rename(tmp, this.path);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (error) {
    if (error instanceof SyntaxError) return undefined; // handled as a file that fails the schema
    throw error;
  }
}
