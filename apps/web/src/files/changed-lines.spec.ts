import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { changedLines } from './changed-lines';

/** A git-style patch of one file, as `GET /v1/workspaces/:id/patch` writes it. */
const patchOf = (path: string, before: string, after: string) => `diff --git a/${path} b/${path}\n${createTwoFilesPatch(`a/${path}`, `b/${path}`, before, after, '', '', { context: 1 }).split('\n').slice(1).join('\n')}`;

describe('the lines the viewer marks as changed', () => {
  it('are the added and replaced lines, numbered in the file as it is now', () => {
    const before = 'a\nb\nc\nd\ne\nf\ng\n';
    const after = 'a\nB\nc\nd\ne\nf\ng\nh\ni\n';
    expect([...changedLines(patchOf('src/x.txt', before, after), 'src/x.txt')]).toEqual([2, 8, 9]);
  });

  it('are every line of a new file, and none of a file the patch does not touch', () => {
    const patch = patchOf('new.txt', '', 'one\ntwo\n') + patchOf('other.txt', 'x\n', 'y\n');
    expect([...changedLines(patch, 'new.txt')]).toEqual([1, 2]);
    expect(changedLines(patch, 'README.md').size).toBe(0);
    expect(changedLines('', 'new.txt').size).toBe(0);
  });
});
