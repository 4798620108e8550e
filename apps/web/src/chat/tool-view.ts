import type { ToolItem } from '../timeline/timeline';
import { type Replacement, gitPatch, previewEdit, snippetDiff } from './edit-preview';

/** What a tool card says about a call, worked out from its arguments and result text. */
export interface ToolView {
  /** One line: the path, command or pattern the call is about. */
  subject: string;
  /** A unified diff to render: the edit's real diff once done, a preview of it before. */
  diff: string | null;
  exitCode: string | null;
  durationMs: number | null;
  status: 'asking' | 'running' | 'done' | 'failed' | 'denied';
}

const str = (value: unknown) => (typeof value === 'string' ? value : '');

/** `fileText`: the edited file as it is now, for an `edit_file` call's preview (its real line numbers). */
export function viewOf(tool: ToolItem, fileText?: string): ToolView {
  const { args, result } = tool;
  const output = result?.output ?? '';
  const exit = /^exit code: (.+)$/m.exec(output)?.[1] ?? null;
  const duration = /^duration: (\d+) ms$/m.exec(output)?.[1];
  return {
    subject: subjectOf(tool.name, args),
    diff: diffOf(tool, fileText),
    exitCode: exit,
    durationMs: duration ? Number(duration) : result ? Date.parse(result.at) - Date.parse(tool.calledAt) : null,
    status: statusOf(tool),
  };
}

function subjectOf(name: string, args: Record<string, unknown>): string {
  switch (name) {
    case 'run_command':
      return str(args.command);
    case 'execute_code':
      return `${str(args.language)} snippet`;
    case 'move_file':
      return `${str(args.from)} → ${str(args.to)}`;
    case 'search_files':
    case 'glob':
      return str(args.pattern);
    case 'delegate':
      return str(args.task);
    default:
      return str(args.path) || str(args.command) || '';
  }
}

function statusOf(tool: ToolItem): ToolView['status'] {
  if (tool.decision?.decision === 'deny') return 'denied';
  if (tool.result) return tool.result.isError ? 'failed' : 'done';
  if (tool.permission && !tool.decision) return 'asking';
  return 'running';
}

function diffOf(tool: ToolItem, fileText: string | undefined): string | null {
  const path = str(tool.args.path);
  if (tool.name === 'edit_file') {
    const done = tool.result && !tool.result.isError ? tool.result.output : '';
    const start = done.indexOf('--- ');
    if (start >= 0) return done.slice(start);
    // Before it runs (or when it failed): what the call asks to replace, in the file when it is known.
    const edits = (Array.isArray(tool.args.edits) ? (tool.args.edits as Array<Record<string, unknown>>) : []).map((e): Replacement => ({ old: str(e.old), new: str(e.new) }));
    return (fileText !== undefined ? previewEdit(path, fileText, edits) : null) ?? snippetDiff(path, edits);
  }
  if (tool.name === 'write_file') return gitPatch('/dev/null', `b/${path}`, '', str(tool.args.content));
  return null;
}
