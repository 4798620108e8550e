import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from './config-reference';
import { anchorsOf, brokenLinks, documentationFiles, formatBroken, linksOf } from './markdown-links';

describe('links in the documentation', () => {
  it('every relative link and anchor in README.md, CONTRIBUTING.md and docs/ resolves', () => {
    const files = documentationFiles(REPO_ROOT);
    expect(files).toContain('docs/README.md');
    expect(formatBroken(brokenLinks(REPO_ROOT, files))).toBe('');
  }, 120_000); // a few hundred KB of Markdown: seconds on a loaded 2-core machine
});

describe('linksOf', () => {
  it('finds links, images and definitions, not code', () => {
    const markdown = [
      'See [the guide](docs/guide.md#setup) and ![a picture](img/a.png).',
      '',
      '| table | cell |',
      '| --- | --- |',
      '| [in a table](t.md) | x |',
      '',
      '```sh',
      'echo "[not a link](nowhere.md)"',
      '```',
      '',
      'Inline `[code](nowhere.md)` is not one either; [by reference][ref].',
      '',
      '[ref]: ref.md',
    ].join('\n');
    expect(linksOf(markdown).map((link) => link.url)).toEqual(['docs/guide.md#setup', 'img/a.png', 't.md', 'ref.md']);
  });
});

describe('anchorsOf', () => {
  it('slugs headings as GitHub does, numbering duplicates, and keeps HTML anchors', () => {
    const markdown = ['# Run it', '## `weft usage` and `weft admin`', '## GPU figures (H100, 2026-11-24)', '## Run it', '<a id="custom"></a>'].join('\n\n');
    expect([...anchorsOf(markdown)]).toEqual(['run-it', 'weft-usage-and-weft-admin', 'gpu-figures-h100-2026-11-24', 'run-it-1', 'custom']);
  });
});

describe('brokenLinks', () => {
  const root = mkdtempSync(join(tmpdir(), 'weft-links-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };

  it('names each missing file, missing heading and link out of the repository, with its line', () => {
    write('docs/guide.md', '# Guide\n\n## Set up\n');
    write('docs/img/shot.png', '');
    write(
      'README.md',
      [
        '[ok](docs/guide.md#set-up) [dir](docs/img/) [image](docs/img/shot.png) [self](#top) [web](https://example.com/x.md)',
        '',
        '# Top',
        '',
        '[gone](docs/missing.md)',
        '[bad anchor](docs/guide.md#install)',
        '[outside](../elsewhere.md)',
        '[self, bad](#nowhere)',
      ].join('\n'),
    );
    expect(formatBroken(brokenLinks(root, ['README.md'])).split('\n')).toEqual([
      'README.md:5 docs/missing.md: docs/missing.md does not exist',
      'README.md:6 docs/guide.md#install: docs/guide.md has no heading #install',
      'README.md:7 ../elsewhere.md: ../elsewhere.md leaves the repository',
      'README.md:8 #nowhere: README.md has no heading #nowhere',
    ]);
  });
});
