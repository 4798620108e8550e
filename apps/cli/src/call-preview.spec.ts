import { describe, expect, it } from 'vitest';
import { MAX_PREVIEW_LINES, previewCall } from './call-preview';

describe('previewCall', () => {
  it('shows the diff each edit of an edit_file would make', () => {
    const lines = previewCall({
      name: 'edit_file',
      arguments: { path: 'a.ts', edits: [{ old: 'const a = 1;\nconst b = 2;\n', new: 'const a = 1;\nconst b = 3;\n' }] },
    });
    expect(lines).toEqual(['@@ edit 1 @@', '  const a = 1;', '- const b = 2;', '+ const b = 3;']);
  });

  it('shows what write_file writes and what execute_code runs, cut to a limit', () => {
    expect(previewCall({ name: 'write_file', arguments: { path: 'x', content: 'one\ntwo\n' } })).toEqual(['+ one', '+ two']);
    expect(previewCall({ name: 'execute_code', arguments: { language: 'python', code: 'print(1)' } })).toEqual(['  print(1)']);
    const long = previewCall({ name: 'write_file', arguments: { path: 'x', content: 'x\n'.repeat(100) } });
    expect(long).toHaveLength(MAX_PREVIEW_LINES + 1);
    expect(long.at(-1)).toBe(`… ${100 - MAX_PREVIEW_LINES} more lines`);
  });

  it('has nothing to add for a command, whose subject is already the exact command', () => {
    expect(previewCall({ name: 'run_command', arguments: { command: 'npm test' } })).toEqual([]);
  });
});
