import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ErrorCode, type FileToolName } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { HARNESS_WORKSPACE_ID, type ToolHarness, createToolHarness } from '../testing/tool-harness';

const SECRET = 'TOPSECRET-outside';

/** Every tool, with the attacked path in the place where that tool takes a path. */
const uses: Array<[string, FileToolName, (path: string) => Record<string, unknown>]> = [
  ['read_file', 'read_file', (path) => ({ path })],
  ['write_file', 'write_file', (path) => ({ path, content: 'pwned' })],
  ['edit_file', 'edit_file', (path) => ({ path, edits: [{ old: 'TOPSECRET', new: 'pwned' }] })],
  ['list_directory', 'list_directory', (path) => ({ path, recursive: true })],
  ['search_files', 'search_files', (path) => ({ pattern: 'TOPSECRET', path })],
  ['glob', 'glob', (path) => ({ pattern: '**', path })],
  ['create_directory', 'create_directory', (path) => ({ path: `${path}/made` })],
  ['move_file from', 'move_file', (path) => ({ from: path, to: 'stolen.txt' })],
  ['move_file to', 'move_file', (path) => ({ from: 'mine.txt', to: path, overwrite: true })],
  ['delete_file', 'delete_file', (path) => ({ path, recursive: true })],
];

describe('containment attacks against every file tool', () => {
  let h: ToolHarness;
  let outsideBefore: string[];

  beforeEach(async () => {
    h = await createToolHarness();
    await mkdir(join(h.base, 'outside'));
    await writeFile(join(h.base, 'outside', 'secret.txt'), SECRET);
    await mkdir(join(h.base, 'workspaces', `${HARNESS_WORKSPACE_ID}-evil`));
    await writeFile(join(h.base, 'workspaces', `${HARNESS_WORKSPACE_ID}-evil`, 'secret.txt'), SECRET);
    await h.files({
      'mine.txt': 'mine',
      'evil-dir': { link: join(h.base, 'outside') },
      'evil-rel': { link: '../../outside' },
      'leaf-out': { link: '../../outside/secret.txt' },
      'dangle': { link: '../../outside/created.txt' },
    });
    outsideBefore = await snapshotOutside();
  });
  afterEach(() => h.cleanup());

  async function snapshotOutside(): Promise<string[]> {
    const outside = await readdir(join(h.base, 'outside'));
    const sibling = await readdir(join(h.base, 'workspaces', `${HARNESS_WORKSPACE_ID}-evil`));
    const secret = await readFile(join(h.base, 'outside', 'secret.txt'), 'utf8');
    return [...outside, '|', ...sibling, '|', secret];
  }

  /** The attack, the path it sends, and the code it is refused with (leaving the workspace, unless said). */
  const attacks: Array<[string, (base: string) => string, ErrorCode?]> = [
    ['a .. traversal', () => '../../outside/secret.txt'],
    ['an absolute path', () => '/etc/passwd'],
    ['an absolute path into the outside folder', (base) => join(base, 'outside', 'secret.txt')],
    ['a symlinked parent (absolute) leading out', () => 'evil-dir/secret.txt'],
    ['a symlinked parent (relative) leading out', () => 'evil-rel/secret.txt'],
    ['a sibling folder sharing the root as prefix', () => `../${HARNESS_WORKSPACE_ID}-evil/secret.txt`],
    ['a NUL byte', () => 'mine.txt\0/../../outside/secret.txt', ErrorCode.InvalidPath],
  ];

  describe.each(uses)('%s', (_name, tool, argsFor) => {
    it.each(attacks)('refuses %s and leaves the outside untouched', async (_attack, pathFor, code = ErrorCode.PathOutsideWorkspace) => {
      const result = await h.call(tool, argsFor(pathFor(h.base)));
      expect(result).toMatchObject({ isError: true, errorCode: code });
      expect(result.output).not.toContain(SECRET);
      expect(await snapshotOutside()).toEqual(outsideBefore);
    });

    it('never reads, writes or creates through a link out of the workspace', async () => {
      for (const path of ['leaf-out', 'dangle']) {
        const result = await h.call(tool, argsFor(path));
        expect(result.output).not.toContain(SECRET);
      }
      expect(await snapshotOutside()).toEqual(outsideBefore);
    });
  });

  it('follows a link to the outside for no tool that acts on what a name points to', async () => {
    for (const tool of ['read_file', 'write_file', 'edit_file', 'list_directory', 'search_files', 'glob'] as const) {
      for (const path of ['leaf-out', 'dangle']) {
        expect(await h.call(tool, uses.find(([n]) => n === tool)?.[2](path) ?? {})).toMatchObject({
          isError: true,
          errorCode: ErrorCode.PathOutsideWorkspace,
        });
      }
    }
  });
});

describe("Weft's own settings (.weft/) inside a workspace", () => {
  let h: ToolHarness;
  const rules = () => readFile(join(h.root, '.weft', 'rules.json'), 'utf8');

  beforeEach(async () => {
    h = await createToolHarness();
    await h.files({ '.weft/rules.json': '{"allow":[]}', 'a.txt': 'a', 'cfg': { link: '.weft' } });
  });
  afterEach(() => h.cleanup());

  it('can be read', async () => {
    expect((await h.call('read_file', { path: '.weft/rules.json' })).output).toBe('1\t{"allow":[]}');
  });

  it.each([
    ['write_file', { path: '.weft/rules.json', content: '{"allow":["*"]}' }],
    ['write_file', { path: 'cfg/rules.json', content: '{"allow":["*"]}' }],
    ['write_file', { path: '.weft/new.json', content: '{}' }],
    ['edit_file', { path: '.weft/rules.json', edits: [{ old: '[]', new: '["*"]' }] }],
    ['edit_file', { path: 'cfg/rules.json', edits: [{ old: '[]', new: '["*"]' }] }],
    ['create_directory', { path: '.weft/sub' }],
    ['move_file', { from: '.weft/rules.json', to: 'rules.json' }],
    ['move_file', { from: '.weft', to: 'settings' }],
    ['move_file', { from: 'a.txt', to: '.weft/rules.json', overwrite: true }],
    ['delete_file', { path: '.weft/rules.json' }],
    ['delete_file', { path: '.weft', recursive: true }],
    ['delete_file', { path: 'cfg/rules.json' }],
  ] as const)('cannot be changed by %s %j', async (tool, args) => {
    expect(await h.call(tool, args)).toMatchObject({ isError: true, errorCode: ErrorCode.Forbidden });
    expect(await rules()).toBe('{"allow":[]}');
    expect((await readdir(join(h.root, '.weft'))).sort()).toEqual(['rules.json']);
  });

  it('is created by nobody but Weft', async () => {
    await h.call('delete_file', { path: 'cfg' });
    await h.call('delete_file', { path: '.weft/rules.json' });
    expect(await h.call('create_directory', { path: '.weft' })).toMatchObject({ errorCode: ErrorCode.Forbidden });
  });
});
