import { describe, expect, it } from 'vitest';
import { changesHint } from './changes-hint';
import type { ChangedFile } from './patch-summary';

const files = (...paths: string[]): ChangedFile[] => paths.map((path) => ({ path, change: 'modified' }));
const target = { sessionId: 'ses_1', workspaceId: 'ws_1', cwd: '/src/app' };

describe('changesHint', () => {
  it('names the files and says that weft apply writes them here when the workspace came from this folder', () => {
    expect(changesHint({ files: files('a.ts', 'b.ts', 'c.ts'), notes: [] }, { ...target, folder: '/src/app' })).toBe(
      '3 files changed in the workspace (a.ts, b.ts, c.ts) · `weft apply ses_1` writes them here · `weft workspace pull ws_1 <dir>` downloads all of it',
    );
  });

  it('names the folder the workspace came from, or asks for one, and counts what it does not name', () => {
    const many = { files: files('1', '2', '3', '4', '5', '6', '7'), notes: [] };
    expect(changesHint(many, { ...target, folder: '/src/other' })).toContain('(1, 2, 3, 4, 5, 2 more) · `weft apply ses_1` writes them into /src/other');
    expect(changesHint({ files: files('a.ts'), notes: [] }, { ...target, folder: undefined })).toContain(
      '1 file changed in the workspace (a.ts) · `weft apply ses_1 --dir <folder>` writes them into a copy of the original',
    );
  });

  it('says nothing when no file differs from the upload', () => {
    expect(changesHint({ files: [], notes: [] }, { ...target, folder: '/src/app' })).toBeUndefined();
  });
});
