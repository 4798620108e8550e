import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ToolHarness, createToolHarness } from '../testing/tool-harness';

describe('list_directory', () => {
  let h: ToolHarness;

  beforeEach(async () => {
    h = await createToolHarness();
    await h.files({
      '.gitignore': 'dist/\n*.log\n',
      'src/index.ts': 'x',
      'src/lib/util.ts': 'xy',
      'src/.gitignore': 'generated.ts\n',
      'src/generated.ts': '',
      'dist/bundle.js': '',
      'debug.log': '',
      '.git/HEAD': 'ref',
      'node_modules/pkg/index.js': '',
      'link': { link: 'src' },
    });
    await mkdir(join(h.root, 'empty'));
  });
  afterEach(() => h.cleanup());

  it('lists one level, hiding what .gitignore, .git and node_modules hide, and says so', async () => {
    expect((await h.call('list_directory', { path: '.' })).output).toBe(
      '.gitignore (12 bytes)\nempty/\nlink@ (symbolic link)\nsrc/\n[4 hidden by .gitignore or as .git/node_modules; includeIgnored: true shows them]',
    );
  });

  it('lists recursively in tree order, with nested .gitignore files, never into a link', async () => {
    expect((await h.call('list_directory', { path: '.', recursive: true })).output.split('\n')).toEqual([
      '.gitignore (12 bytes)',
      'empty/',
      'link@ (symbolic link)',
      'src/',
      'src/.gitignore (13 bytes)',
      'src/index.ts (1 bytes)',
      'src/lib/',
      'src/lib/util.ts (2 bytes)',
      '[5 hidden by .gitignore or as .git/node_modules; includeIgnored: true shows them]',
    ]);
  });

  it('names entries relative to a listed subfolder and applies the root .gitignore there', async () => {
    await h.files({ 'src/lib/trace.log': '' });
    expect((await h.call('list_directory', { path: 'src/lib', recursive: true })).output).toBe(
      'util.ts (2 bytes)\n[1 hidden by .gitignore or as .git/node_modules; includeIgnored: true shows them]',
    );
  });

  it('shows everything when asked', async () => {
    const { output } = await h.call('list_directory', { path: '.', recursive: true, includeIgnored: true });
    for (const name of ['.git/HEAD', 'node_modules/pkg/index.js', 'dist/bundle.js', 'debug.log', 'src/generated.ts']) {
      expect(output).toContain(name);
    }
    expect(output).not.toContain('hidden');
  });

  it('says an empty folder is empty', async () => {
    expect((await h.call('list_directory', { path: 'empty' })).output).toBe("'empty' is empty");
  });
});
