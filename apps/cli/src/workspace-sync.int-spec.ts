import { mkdir, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { script } from '../../../test/support/app-harnesses';
import { weft } from './testing/built-cli';
import { cliStack } from './testing/cli-stack';

/**
 * `weft run` in a folder it uploaded before, with the built `weft` against the real gateway (on
 * real Redis and NATS) and the real tools worker holding the workspaces on disk: the second run
 * reuses the workspace and sends only what changed.
 */
const stack = cliStack('weft-cli-sync');

const env = (key: string) => ({ XDG_CONFIG_HOME: join(stack.home, 'config'), HOME: stack.home, WEFT_URL: stack.gateway.base, WEFT_KEY: key });

async function folder(files: Record<string, string>): Promise<string> {
  const dir = join(stack.home, 'project');
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

/** `weft run` on the folder; the workspace the session was made on, and what weft said. */
async function run(key: string, dir: string, ...extra: string[]): Promise<{ workspaceId: string; stderr: string }> {
  const result = await weft(['run', 'look around', '--dir', dir, '--yes', ...extra], env(key));
  expect(result.code, result.stderr).toBe(0);
  const workspaceId = /workspace (ws_[\w-]+) · model/.exec(result.stderr)?.[1];
  expect(workspaceId, result.stderr).toBeDefined();
  return { workspaceId: workspaceId as string, stderr: result.stderr };
}

const inode = async (workspaceId: string, path: string) => (await stat(join(stack.workspaces, workspaceId, path))).ino;

describe('weft run in a folder it uploaded before', () => {
  it('reuses the workspace and sends only the changed file; says why when it makes a new one', async () => {
    const f = await stack.client.fixture(`sync-${stack.testId}`);
    const dir = await folder({ 'a.txt': 'one\n', 'src/b.ts': 'export const b = 1;\n', 'docs/c.md': '# c\n', 'node_modules/dep/index.js': '' });

    const first = await run(f.key, dir);
    expect(first.stderr).toContain(`uploading ${dir}`);
    expect(first.stderr).toContain('as a new workspace');
    const unchangedInode = await inode(first.workspaceId, 'src/b.ts');

    await writeFile(join(dir, 'a.txt'), 'two\n');
    const second = await run(f.key, dir);
    expect(second.workspaceId).toBe(first.workspaceId);
    expect(second.stderr).toContain(`workspace ${first.workspaceId}: sent 1 changed file, removed 0, 2 unchanged`);
    expect(second.stderr).not.toContain('uploading');
    expect(await (await fetch(`${stack.gateway.base}/v1/workspaces/${first.workspaceId}/files/a.txt`, { headers: { authorization: `Bearer ${f.key}` } })).text()).toBe('two\n');
    // The unchanged file was not sent again: the tools worker never rewrote it.
    expect(await inode(first.workspaceId, 'src/b.ts')).toBe(unchangedInode);

    await unlink(join(dir, 'docs/c.md'));
    await writeFile(join(dir, 'new.txt'), 'new\n');
    const third = await run(f.key, dir);
    expect(third.stderr).toContain(`workspace ${first.workspaceId}: sent 1 changed file, removed 1, 2 unchanged`);
    const listed = await stack.client.api('GET', `/v1/workspaces/${first.workspaceId}/manifest`, f.key);
    expect((listed.json.entries as Array<{ path: string }>).map((e) => e.path)).toEqual(['a.txt', 'docs', 'new.txt', 'src', 'src/b.ts']);

    const same = await weft(['workspace', 'sync', dir], env(f.key));
    expect(same.stdout.trim()).toBe(first.workspaceId);
    expect(same.stderr).toContain(`workspace ${first.workspaceId}: up to date with ${dir} (3 files unchanged)`);

    const fresh = await run(f.key, dir, '--new-workspace');
    expect(fresh.workspaceId).not.toBe(first.workspaceId);
    expect(fresh.stderr).toContain('as a new workspace, as --new-workspace asks');

    // The newest upload of the folder is the one synced from now on; deleting it makes another.
    expect((await weft(['workspace', 'delete', fresh.workspaceId], env(f.key))).code).toBe(0);
    const afterDelete = await run(f.key, dir);
    expect(afterDelete.workspaceId).toBe(first.workspaceId);
    expect((await stack.client.api('DELETE', `/v1/workspaces/${first.workspaceId}`, f.key)).status).toBe(204);
    const gone = await run(f.key, dir);
    expect(gone.workspaceId).not.toBe(first.workspaceId);
    expect(gone.stderr).toContain(`a new workspace: ${first.workspaceId}, which this folder was uploaded to, no longer exists`);

    const stranger = await stack.client.fixture(`sync-stranger-${stack.testId}`);
    const theirs = await run(stranger.key, dir);
    expect(theirs.workspaceId).not.toBe(gone.workspaceId);
    expect(theirs.stderr).toContain(`a new workspace: this folder's ${gone.workspaceId} belongs to another user`);
  });

  it("keeps the workspace's unapplied changes and uploads anew; replaces them only when told to discard them", async () => {
    const f = await stack.client.fixture(`sync-agent-${stack.testId}`);
    const dir = await folder({ 'a.txt': 'one\n', 'b.txt': 'b\n' });
    const { workspaceId } = await run(f.key, dir);
    // What an agent wrote there and nobody applied here.
    await writeFile(join(stack.workspaces, workspaceId, 'a.txt'), 'the agent was here\n');
    await writeFile(join(stack.workspaces, workspaceId, 'NOTES.md'), 'agent notes\n');
    const file = async (id: string, path: string) =>
      (await fetch(`${stack.gateway.base}/v1/workspaces/${id}/files/${path}`, { headers: { authorization: `Bearer ${f.key}` } })).text();

    // No one to ask (no terminal): the changes stay where they are, and this run gets a new upload.
    const again = await run(f.key, dir);
    expect(again.workspaceId).not.toBe(workspaceId);
    expect(again.stderr).toContain(
      `as a new workspace: ${workspaceId} holds changes not applied here (NOTES.md, a.txt), kept there: \`weft apply ${workspaceId}\` writes them here`,
    );
    expect(await file(workspaceId, 'a.txt')).toBe('the agent was here\n');
    expect(await file(workspaceId, 'NOTES.md')).toBe('agent notes\n');

    // Only an explicit discard lets the folder's version replace them.
    expect((await weft(['workspace', 'delete', again.workspaceId], env(f.key))).code).toBe(0);
    const discarded = await run(f.key, dir, '--discard-unapplied');
    expect(discarded.workspaceId).toBe(workspaceId);
    expect(discarded.stderr).toContain(`workspace ${workspaceId}: sent 1 changed file, removed 1, 1 unchanged`);
    expect(discarded.stderr).toContain("the folder's version replaced 2 paths changed in the workspace since the last upload: NOTES.md, a.txt");
    expect(await file(workspaceId, 'a.txt')).toBe('one\n');
  });

  it('uploads a new workspace, saying why, while a turn runs in the folder\'s workspace', async () => {
    const f = await stack.client.fixture(`sync-busy-${stack.testId}`);
    const dir = await folder({ 'a.txt': 'one\n' });
    const { workspaceId } = await run(f.key, dir);
    const sessionId = String((await stack.client.api('POST', '/v1/sessions', f.key, { workspaceId, model: 'tiny' })).json.id);
    script(sessionId, [{ hang: true }]);
    const before = String((await stack.client.api('GET', `/v1/sessions/${sessionId}`, f.key)).json.lastEventId);
    const turnId = String((await stack.client.api('POST', `/v1/sessions/${sessionId}/messages`, f.key, { content: 'think' })).json.turnId);
    try {
      await writeFile(join(dir, 'a.txt'), 'two\n');
      const busy = await run(f.key, dir);
      expect(busy.workspaceId).not.toBe(workspaceId);
      expect(busy.stderr).toContain(`as a new workspace: ${workspaceId} is busy: a turn is running in it (session ${sessionId})`);
    } finally {
      await stack.client.api('POST', `/v1/sessions/${sessionId}/turns/${turnId}/cancel`, f.key);
      await stack.client.follow({ ...f, sessionId }, before);
    }
  });
});
