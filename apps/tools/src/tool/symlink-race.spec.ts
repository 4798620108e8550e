import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, type FileToolName } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ToolHarness, createToolHarness } from '../testing/tool-harness';

const CALLS = 3000;

/**
 * Runs in its own process, so the swaps interleave with the worker's system calls for real:
 * `sub` is a folder, then a link to the outside folder, then a folder again, as fast as it goes.
 */
const SWAPPER = `
const fs = require('node:fs');
const [root, outside] = process.argv.slice(1);
const sub = root + '/sub', held = root + '/sub.held';
const spin = (us) => { const end = process.hrtime.bigint() + BigInt(us * 1000); while (process.hrtime.bigint() < end); };
process.stdout.write('ready\\n');
for (;;) {
  try { fs.renameSync(sub, held); fs.symlinkSync(outside, sub); } catch {}
  spin(200);
  try { fs.unlinkSync(sub); fs.renameSync(held, sub); } catch {}
  spin(200);
}
`;

const callFor: Array<(i: number) => [FileToolName, Record<string, unknown>]> = [
  (i) => ['write_file', { path: `sub/w-${i}.txt`, content: 'x' }],
  (i) => ['write_file', { path: `sub/deep/n-${i}/f.txt`, content: 'x' }],
  () => ['edit_file', { path: 'sub/edit-me.txt', edits: [{ old: 'a', new: 'b' }] }],
  () => ['edit_file', { path: 'sub/edit-me.txt', edits: [{ old: 'b', new: 'a' }] }],
  (i) => ['create_directory', { path: `sub/d-${i}/e` }],
  () => ['write_file', { path: 'sub/keep.txt', content: 'inside' }],
  () => ['delete_file', { path: 'sub/keep.txt' }],
  () => ['create_directory', { path: 'sub/keep-dir/inner' }],
  () => ['delete_file', { path: 'sub/keep-dir', recursive: true }],
  () => ['move_file', { from: 'sub/edit-me.txt', to: 'sub/moved.txt' }],
  () => ['move_file', { from: 'sub/moved.txt', to: 'sub/edit-me.txt' }],
];

function callAt(n: number): [FileToolName, Record<string, unknown>] {
  const make = callFor[n % callFor.length];
  if (!make) throw new Error('unreachable');
  return make(n);
}

/** A refusal the model can read; anything else (a thrown error) fails the test. */
const clearRefusals = new Set<string>([
  ErrorCode.PathOutsideWorkspace,
  ErrorCode.Conflict, ErrorCode.FileNotFound, ErrorCode.NotADirectory, ErrorCode.NotAFile, ErrorCode.ValidationFailed]);

describe('a folder swapped for a link out during thousands of writes, moves and deletes', () => {
  let h: ToolHarness;
  let outside: string;
  let swapper: ChildProcess | undefined;

  beforeEach(async () => {
    h = await createToolHarness();
    outside = join(h.base, 'outside');
    await mkdir(outside);
    await writeFile(join(outside, 'edit-me.txt'), 'a');
    await writeFile(join(outside, 'keep.txt'), 'outside');
    await mkdir(join(outside, 'keep-dir', 'inner'), { recursive: true });
    await writeFile(join(outside, 'keep-dir', 'x.txt'), 'outside');
    await h.files({ 'sub/edit-me.txt': 'a' });
  });
  afterEach(async () => {
    if (swapper && swapper.exitCode === null && swapper.signalCode === null) {
      swapper.kill('SIGTERM');
      await once(swapper, 'exit');
    }
    await h.cleanup();
  });

  it('lands nothing outside the workspace and keeps answering', { timeout: 120_000 }, async () => {
    swapper = spawn(process.execPath, ['-e', SWAPPER, h.root, outside], { stdio: ['ignore', 'pipe', 'inherit'] });
    await once(swapper.stdout as NodeJS.ReadableStream, 'data');

    const outcomes = { ok: 0, refused: 0 };
    for (let i = 0; i < CALLS; i += 8) {
      const batch = Array.from({ length: 8 }, (_, j) => callAt(i + j));
      const results = await Promise.all(batch.map(([tool, args]) => h.call(tool, args)));
      for (const result of results) {
        if (!result.isError) outcomes.ok++;
        else if (clearRefusals.has(result.errorCode ?? '')) outcomes.refused++;
        else throw new Error(`unexpected result: ${JSON.stringify(result)}`);
      }
    }
    swapper.kill('SIGTERM');
    await once(swapper, 'exit');

    expect((await readdir(outside)).sort()).toEqual(['edit-me.txt', 'keep-dir', 'keep.txt']);
    expect(await readFile(join(outside, 'edit-me.txt'), 'utf8')).toBe('a');
    expect(await readFile(join(outside, 'keep.txt'), 'utf8')).toBe('outside');
    expect((await readdir(join(outside, 'keep-dir'))).sort()).toEqual(['inner', 'x.txt']);
    expect(await h.call('read_file', { path: '../outside/edit-me.txt' })).toMatchObject({ errorCode: ErrorCode.PathOutsideWorkspace });
    expect(outcomes.ok + outcomes.refused).toBe(CALLS);
    // The race was really run: some calls got through, some met the link.
    expect(outcomes.ok).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(await h.call('write_file', { path: 'after.txt', content: 'still here' })).toMatchObject({ isError: false });
  });
});
