import { diffLines } from 'diff';

/** Lines of a call's preview shown before a permission question; the full call stays in the log. */
export const MAX_PREVIEW_LINES = 40;

interface PreviewedCall {
  name: string;
  arguments: Record<string, unknown>;
}

/**
 * What a person needs to judge a call beyond its one-line subject: the diff an `edit_file` would
 * make, the content a `write_file` would write, the code an `execute_code` would run.
 */
export function previewCall(call: PreviewedCall, maxLines = MAX_PREVIEW_LINES): string[] {
  const args = call.arguments;
  let lines: string[] = [];
  if (call.name === 'edit_file' && Array.isArray(args.edits)) {
    lines = args.edits.flatMap((edit: unknown, index: number) => {
      const { old: before, new: after } = (edit ?? {}) as { old?: unknown; new?: unknown };
      if (typeof before !== 'string' || typeof after !== 'string') return [];
      return [`@@ edit ${index + 1} @@`, ...diffLines(before, after).flatMap(({ added, removed, value }) => prefixed(added ? '+' : removed ? '-' : ' ', value))];
    });
  } else if (call.name === 'write_file' && typeof args.content === 'string') {
    lines = prefixed('+', args.content);
  } else if (call.name === 'execute_code' && typeof args.code === 'string') {
    lines = prefixed(' ', args.code);
  }
  if (lines.length <= maxLines) return lines;
  return [...lines.slice(0, maxLines), `… ${lines.length - maxLines} more lines`];
}

function prefixed(sign: string, text: string): string[] {
  return text.replace(/\n$/, '').split('\n').map((line) => `${sign} ${line}`);
}
