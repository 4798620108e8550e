import { ErrorCode } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ToolHarness, createToolHarness } from '../testing/tool-harness';

describe('search_files (ripgrep)', () => {
  let h: ToolHarness;

  beforeEach(async () => {
    h = await createToolHarness();
    await h.files({
      '.gitignore': 'dist/\n',
      'src/a.ts': 'const TODO = 1;\n// todo: later\n',
      'src/b.py': 'TODO = 2\n',
      'dist/a.js': 'TODO\n',
      'node_modules/x/i.js': 'TODO\n',
      '.git/config': 'TODO\n',
      'many.txt': 'hit\n'.repeat(50),
    });
  });
  afterEach(() => h.cleanup());

  it('returns path:line: text for each match, skipping ignored places', async () => {
    expect((await h.call('search_files', { pattern: 'TODO' })).output.split('\n').sort()).toEqual([
      'src/a.ts:1: const TODO = 1;',
      'src/b.py:1: TODO = 2',
    ]);
  });

  it('narrows by glob and by path, and matches case-insensitively when asked', async () => {
    expect((await h.call('search_files', { pattern: 'todo', glob: '*.ts', ignoreCase: true })).output).toBe(
      'src/a.ts:1: const TODO = 1;\nsrc/a.ts:2: // todo: later',
    );
    expect((await h.call('search_files', { pattern: 'TODO', path: 'src/b.py' })).output).toBe('src/b.py:1: TODO = 2');
  });

  it('caps the results and says so', async () => {
    const { output } = await h.call('search_files', { pattern: '^hit$', maxResults: 5 });
    expect(output.split('\n')).toHaveLength(6);
    expect(output).toContain('[stopped at 5 matches');
  });

  it('reports no matches, and a bad regex as an error the model can fix', async () => {
    expect((await h.call('search_files', { pattern: 'nothing-like-this' })).output).toBe('No matches');
    const bad = await h.call('search_files', { pattern: '(unclosed' });
    expect(bad).toMatchObject({ isError: true, errorCode: ErrorCode.ValidationFailed });
    expect(bad.output).toContain('regex');
  });

  it('does not follow a link out of the workspace', async () => {
    await h.files({ 'out/secret.txt': 'TOPSECRET' });
    await h.files({ 'escape': { link: h.base } });
    expect((await h.call('search_files', { pattern: 'TOPSECRET' })).output).toBe('out/secret.txt:1: TOPSECRET');
  });
});
