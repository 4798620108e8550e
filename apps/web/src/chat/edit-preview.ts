import { FILE_HEADERS_ONLY, createTwoFilesPatch, formatPatch, structuredPatch } from 'diff';

/** Lines of context around each change, as the tools worker's own diff of an edit has. */
export const PREVIEW_CONTEXT_LINES = 3;

export interface Replacement {
  old: string;
  new: string;
}

/**
 * The diff an `edit_file` call would make to `text` (the file as it is now): its real line numbers
 * and a few lines of context, worked out as the tools worker applies edits (each `old` must occur
 * exactly once, in order). Null when one does not, so the call would fail as it stands.
 */
export function previewEdit(path: string, text: string, edits: readonly Replacement[]): string | null {
  let updated = text;
  for (const edit of edits) {
    const at = updated.indexOf(edit.old);
    if (edit.old === '' || at < 0 || updated.indexOf(edit.old, at + 1) >= 0) return null;
    updated = updated.slice(0, at) + edit.new + updated.slice(at + edit.old.length);
  }
  const patch = structuredPatch(`a/${path}`, `b/${path}`, text, updated, undefined, undefined, { context: PREVIEW_CONTEXT_LINES });
  return withGitHeader(path, formatPatch(patch, FILE_HEADERS_ONLY));
}

/** Without the file: each replacement alone, numbered from its own first line. */
export function snippetDiff(path: string, edits: readonly Replacement[]): string {
  return edits.map((e) => gitPatch(`a/${path}`, `b/${path}`, `${e.old}\n`, `${e.new}\n`)).join('');
}

/** jsdiff's patch as git writes it: a `diff --git` line per file (what the diff view splits on), no `===` rule. */
export function gitPatch(from: string, to: string, before: string, after: string): string {
  const body = createTwoFilesPatch(from, to, before, after, undefined, undefined, { context: 0 });
  return withGitHeader(to.replace(/^b\//, ''), body.slice(body.indexOf('--- ')));
}

const withGitHeader = (path: string, patch: string) => `diff --git a/${path} b/${path}\n${patch}`;
