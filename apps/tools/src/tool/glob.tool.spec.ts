import { ErrorCode } from '@weft/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type ToolHarness, createToolHarness } from '../testing/tool-harness';

describe('glob', () => {
  let h: ToolHarness;

  beforeEach(async () => {
    h = await createToolHarness();
    await h.files({
      '.gitignore': 'build/\n',
      'a.ts': '',
      'src/b.ts': '',
      'src/b.spec.ts': '',
      'src/.hidden.ts': '',
      'build/out.ts': '',
      'node_modules/x/index.ts': '',
      'linked': { link: 'src' },
    });
  });
  afterEach(() => h.cleanup());

  it('matches at any depth, dotfiles included, ignored files left out, links not entered', async () => {
    expect((await h.call('glob', { pattern: '**/*.ts' })).output).toBe('a.ts\nsrc/.hidden.ts\nsrc/b.spec.ts\nsrc/b.ts');
  });

  it('matches relative to path and returns paths from the root', async () => {
    expect((await h.call('glob', { pattern: '*.spec.ts', path: 'src' })).output).toBe('src/b.spec.ts');
  });

  it('includes ignored files when asked', async () => {
    expect((await h.call('glob', { pattern: '**/out.ts', includeIgnored: true })).output).toBe('build/out.ts');
  });

  it('says when nothing matches, and refuses a missing folder', async () => {
    expect((await h.call('glob', { pattern: '**/*.py' })).output).toBe("No files match '**/*.py' under '.'");
    expect(await h.call('glob', { pattern: '*', path: 'nope' })).toMatchObject({ isError: true, errorCode: ErrorCode.FileNotFound });
  });
});
