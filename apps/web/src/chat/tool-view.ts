import { createTwoFilesPatch } from 'diff';
import type { ToolItem } from '../timeline/timeline';

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

export function viewOf(tool: ToolItem): ToolView {
  const { args, result } = tool;
  const output = result?.output ?? '';
  const exit = /^exit code: (.+)$/m.exec(output)?.[1] ?? null;
  const duration = /^duration: (\d+) ms$/m.exec(output)?.[1];
  return {
    subject: subjectOf(tool.name, args),
    diff: diffOf(tool),
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

function diffOf(tool: ToolItem): string | null {
  const path = str(tool.args.path);
  if (tool.name === 'edit_file') {
    const done = tool.result && !tool.result.isError ? tool.result.output : '';
    const start = done.indexOf('--- ');
    if (start >= 0) return done.slice(start);
    // Before it runs (or when it failed): what the call asks to replace.
    const edits = Array.isArray(tool.args.edits) ? (tool.args.edits as Array<Record<string, unknown>>) : [];
    return edits.map((e) => gitPatch(`a/${path}`, `b/${path}`, `${str(e.old)}\n`, `${str(e.new)}\n`)).join('');
  }
  if (tool.name === 'write_file') return gitPatch('/dev/null', `b/${path}`, '', str(tool.args.content));
  return null;
}

/** jsdiff's patch as git writes it: a `diff --git` line per file (what the diff view splits on), no `===` rule. */
function gitPatch(from: string, to: string, before: string, after: string): string {
  const body = createTwoFilesPatch(from, to, before, after, undefined, undefined, { context: 0 });
  const path = to.replace(/^b\//, '');
  return `diff --git a/${path} b/${path}\n${body.slice(body.indexOf('--- '))}`;
}
