import { describe, expect, it } from 'vitest';
import type { ToolItem } from '../timeline/timeline';
import { viewOf } from './tool-view';

const tool = (over: Partial<ToolItem>): ToolItem => ({
  kind: 'tool',
  eventId: '1-1',
  turnId: 't',
  callId: 'c',
  name: 'run_command',
  args: {},
  calledAt: '2026-11-01T10:00:00.000Z',
  live: '',
  ...over,
});

describe('a tool card', () => {
  it("reads a command's exit code and duration from its result", () => {
    const view = viewOf(tool({ args: { command: 'make' }, result: { isError: false, output: 'exit code: 0\nduration: 2467 ms\nstdout:\nok', at: '2026-11-01T10:00:03.000Z' } }));
    expect(view).toMatchObject({ subject: 'make', exitCode: '0', durationMs: 2467, status: 'done' });
  });

  it('waits for the user while a permission question is open, and says denied after a deny', () => {
    const permission = { eventId: '1-2', requestId: 'p', subject: 'make', reasons: [], suggestedRules: [], expiresAt: '' };
    expect(viewOf(tool({ permission })).status).toBe('asking');
    expect(viewOf(tool({ permission, decision: { decision: 'deny', decidedBy: 'user' } })).status).toBe('denied');
  });

  it("previews an edit from its arguments, then shows the tools worker's diff", () => {
    const args = { path: 'src/a.js', edits: [{ old: 'a', new: 'b' }] };
    expect(viewOf(tool({ name: 'edit_file', args })).diff).toMatch(/^diff --git a\/src\/a\.js b\/src\/a\.js\n--- a\/src\/a\.js\n\+\+\+ b\/src\/a\.js\n@@ -1,1 \+1,1 @@\n-a\n\+b\n$/);
    const output = "Edited 'src/a.js' (1 replacement):\n--- a/src/a.js\n+++ b/src/a.js\n@@ -1,2 +1,2 @@\n-a\n+b\n c";
    expect(viewOf(tool({ name: 'edit_file', args, result: { isError: false, output, at: '' } })).diff).toBe(output.slice(output.indexOf('---')));
  });

  it('previews an edit where it falls in the file, when the page has the file', () => {
    const file = 'one\ntwo\nthree\nfour\nfive\nsix\nseven\n';
    const args = { path: 'n.txt', edits: [{ old: 'six\n', new: 'SIX\n' }] };
    expect(viewOf(tool({ name: 'edit_file', args }), file).diff).toContain('@@ -3,5 +3,5 @@\n three\n four\n five\n-six\n+SIX\n seven\n');
    // Text the file does not hold (it changed since): the replacement alone.
    expect(viewOf(tool({ name: 'edit_file', args: { ...args, edits: [{ old: 'ten\n', new: 'X\n' }] } }), file).diff).toContain('@@ -1,1 +1,1 @@');
  });
});
