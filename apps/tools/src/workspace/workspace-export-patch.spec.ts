import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ErrorCode, type ToolCallRequest } from '@weft/contracts';
import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RipgrepAdapter } from '../search/ripgrep.adapter';
import { tarGz } from '../testing/tar-fixtures';
import { ToolRegistry } from '../tool/tool-registry';
import { WorkspaceService } from './workspace.service';
import { SNAPSHOTS_FOLDER, WorkspaceStore } from './workspace-store';

const id = 'ws_patchtest01';
const original = [
  { path: 'calc/', type: 'Directory' as const },
  { path: 'calc/ops.py', content: 'def add(a, b):\n    return a - b\n' },
  { path: 'calc/test_ops.py', content: 'from ops import add\nassert add(1, 2) == 3\n' },
  { path: 'README.md', content: '# calc\n' },
];

describe('workspace snapshot, export patch and usage', () => {
  let base: string;
  let store: WorkspaceStore;
  let service: WorkspaceService;
  let tools: ToolRegistry;
  const call = (tool: ToolCallRequest['tool'], args: Record<string, unknown>) =>
    tools.call({ workspaceId: id, tool, arguments: args } as ToolCallRequest);

  beforeEach(async () => {
    base = await realpath(await mkdtemp(join(tmpdir(), 'weft-wspatch-')));
    store = new WorkspaceStore(join(base, 'workspaces'));
    service = new WorkspaceService(store, { maxBytes: 100_000, maxEntries: 100 }, pino({ level: 'silent' }));
    tools = new ToolRegistry(store, { readFileMaxBytes: 65536, outputMaxBytes: 65536 }, new RipgrepAdapter());
  });
  afterEach(() => rm(base, { recursive: true, force: true }));

  it('keeps the snapshot outside the workspace, where no tool path reaches it', async () => {
    await service.create({ workspaceId: id, archiveBase64: tarGz(original).toString('base64') });
    expect(await readdir(join(base, 'workspaces', SNAPSHOTS_FOLDER))).toEqual([id]);
    expect(await call('read_file', { path: `../${SNAPSHOTS_FOLDER}/${id}/README.md` })).toMatchObject({
      isError: true,
      errorCode: ErrorCode.PathOutsideWorkspace,
    });
    await store.remove(id);
    expect(await readdir(join(base, 'workspaces', SNAPSHOTS_FOLDER))).toEqual([]);
  });

  it('exports what the tools changed as a patch that git apply reproduces on a fresh copy', async () => {
    const archive = tarGz(original);
    await service.create({ workspaceId: id, archiveBase64: archive.toString('base64') });
    await call('edit_file', { path: 'calc/ops.py', edits: [{ old: 'return a - b', new: 'return a + b' }] });
    await call('edit_file', { path: 'README.md', edits: [{ old: '# calc', new: '# calc\n\nAdds numbers.' }] });
    await call('write_file', { path: 'calc/mul.py', content: 'def mul(a, b):\n    return a * b\n' });
    await call('delete_file', { path: 'calc/test_ops.py' });

    const { patch, files, omitted } = await service.exportPatch(id);
    expect({ files, omitted }).toEqual({ files: 4, omitted: [] });

    const fresh = join(base, 'fresh');
    await mkdir(fresh);
    execFileSync('tar', ['-xzf', '-'], { cwd: fresh, input: archive });
    await writeFile(join(base, 'work.patch'), patch);
    execFileSync('git', ['apply', join(base, 'work.patch')], { cwd: fresh });
    expect(await readFile(join(fresh, 'calc/ops.py'), 'utf8')).toBe('def add(a, b):\n    return a + b\n');
    expect(await readFile(join(fresh, 'README.md'), 'utf8')).toBe('# calc\n\nAdds numbers.\n');
    expect(await readFile(join(fresh, 'calc/mul.py'), 'utf8')).toBe('def mul(a, b):\n    return a * b\n');
    expect((await readdir(join(fresh, 'calc'))).sort()).toEqual(['mul.py', 'ops.py']);
  });

  it('diffs an empty workspace against nothing', async () => {
    await service.create({ workspaceId: id });
    await call('write_file', { path: 'hello.txt', content: 'hi\n' });
    expect((await service.exportPatch(id)).patch).toBe(
      'diff --git a/hello.txt b/hello.txt\nnew file mode 100644\n--- /dev/null\n+++ b/hello.txt\n@@ -0,0 +1,1 @@\n+hi\n',
    );
  });

  it('measures usage, a missing workspace as zero', async () => {
    await service.create({ workspaceId: id, archiveBase64: tarGz(original).toString('base64') });
    expect(await service.usage([id, 'ws_notthere01'])).toEqual([
      { workspaceId: id, files: 3, bytes: 81 },
      { workspaceId: 'ws_notthere01', files: 0, bytes: 0 },
    ]);
  });

  it('refuses an archive larger than the quota left, with a 413 code, and leaves nothing behind', async () => {
    const error = await service.create({ workspaceId: id, archiveBase64: tarGz(original).toString('base64'), maxBytes: 10 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: ErrorCode.PayloadTooLarge, message: expect.stringContaining('10 bytes left') });
    expect(await readdir(join(base, 'workspaces')).catch(() => [])).toEqual([]);
  });
});
