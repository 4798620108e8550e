import type { ToolCall } from '@weft/contracts';
import type { PackageScripts } from './shell/package-scripts';

export type FileAction = 'read' | 'write' | 'delete';

/** What a tool call would touch, in the terms the rules speak. */
export type PermissionSubject =
  /** `packageScripts`: the workspace's package.json scripts, read when the command may run one. */
  | { kind: 'command'; tool: string; command: string; packageScripts?: PackageScripts }
  | { kind: 'files'; tool: string; targets: Array<{ action: FileAction; path: string }> }
  | { kind: 'code'; tool: string }
  | { kind: 'other'; tool: string }
  /** The runtime's own tools (notes, delegation): they touch no file and run nothing themselves. */
  | { kind: 'runtime'; tool: string }
  | { kind: 'invalid'; tool: string; message: string };

type Field = { name: string; action: FileAction; required: boolean };

/** The file tools of the tools worker and the path arguments each one acts on. */
const FILE_TOOLS: Readonly<Record<string, Field[]>> = {
  read_file: [{ name: 'path', action: 'read', required: true }],
  list_directory: [{ name: 'path', action: 'read', required: false }],
  search_files: [{ name: 'path', action: 'read', required: false }],
  glob: [{ name: 'path', action: 'read', required: false }],
  write_file: [{ name: 'path', action: 'write', required: true }],
  edit_file: [{ name: 'path', action: 'write', required: true }],
  create_directory: [{ name: 'path', action: 'write', required: true }],
  move_file: [
    { name: 'from', action: 'delete', required: true },
    { name: 'to', action: 'write', required: true },
  ],
  delete_file: [{ name: 'path', action: 'delete', required: true }],
};

const COMMAND_TOOLS = new Set(['run_command']);
const CODE_TOOLS = new Set(['execute_code']);
/** A delegated loop's own calls pass the policy one by one, so handing over a task is allowed by default. */
const RUNTIME_TOOLS = new Set(['remember', 'delegate']);

export function subjectOf(call: ToolCall): PermissionSubject {
  const tool = call.name;
  if (COMMAND_TOOLS.has(tool)) {
    const command = call.arguments.command;
    if (typeof command !== 'string') return { kind: 'invalid', tool, message: `${tool} needs a string "command"` };
    return { kind: 'command', tool, command };
  }
  if (CODE_TOOLS.has(tool)) return { kind: 'code', tool };
  if (RUNTIME_TOOLS.has(tool)) return { kind: 'runtime', tool };
  // Own keys only: a tool named `toString` is not a file tool.
  const fields = Object.hasOwn(FILE_TOOLS, tool) ? FILE_TOOLS[tool] : undefined;
  if (!fields) return { kind: 'other', tool };
  const targets: Array<{ action: FileAction; path: string }> = [];
  for (const field of fields) {
    const value = call.arguments[field.name];
    if (value === undefined && !field.required) targets.push({ action: field.action, path: '.' });
    else if (typeof value === 'string') targets.push({ action: field.action, path: value });
    else return { kind: 'invalid', tool, message: `${tool} needs a string "${field.name}"` };
  }
  return { kind: 'files', tool, targets };
}

/** One line a person can judge: the command, or the paths with what happens to them. */
export function describeSubject(subject: PermissionSubject): string {
  switch (subject.kind) {
    case 'command':
      return subject.command;
    case 'files':
      return subject.targets.map((t) => `${t.action} ${t.path}`).join(', ');
    case 'code':
    case 'other':
    case 'runtime':
      return subject.tool;
    case 'invalid':
      return subject.message;
  }
}
