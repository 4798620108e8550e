import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { FileToolName, ToolCallRequest, ToolCallResult } from '@weft/contracts';
import { RipgrepAdapter } from '../search/ripgrep.adapter';
import { ToolRegistry } from '../tool/tool-registry';
import { WorkspaceStore } from '../workspace/workspace-store';

export interface ToolHarness {
  /** Real temp folder holding the workspaces folder and files outside any workspace. */
  base: string;
  /** Real root of the workspace under test. */
  root: string;
  call(tool: FileToolName, args: Record<string, unknown>): Promise<ToolCallResult>;
  /** Writes files (and their folders) under the root; a value `{ link }` makes a symlink. */
  files(tree: Record<string, string | { link: string }>): Promise<void>;
  cleanup(): Promise<void>;
}

export const HARNESS_WORKSPACE_ID = 'ws_harness0001';

/** A real workspace in a temp folder and a registry over it; no fakes. */
export async function createToolHarness(limits = { readFileMaxBytes: 1024, outputMaxBytes: 8192 }): Promise<ToolHarness> {
  const base = await realpath(await mkdtemp(join(tmpdir(), 'weft-tools-')));
  const store = new WorkspaceStore(join(base, 'workspaces'));
  const root = await store.create(HARNESS_WORKSPACE_ID);
  const registry = new ToolRegistry(store, limits, new RipgrepAdapter());
  return {
    base,
    root,
    call: (tool, args) => registry.call({ workspaceId: HARNESS_WORKSPACE_ID, tool, arguments: args } as ToolCallRequest),
    async files(tree) {
      for (const [path, value] of Object.entries(tree)) {
        const full = join(root, path);
        await mkdir(dirname(full), { recursive: true });
        if (typeof value === 'string') await writeFile(full, value);
        else await symlink(value.link, full);
      }
    },
    cleanup: () => rm(base, { recursive: true, force: true }),
  };
}
