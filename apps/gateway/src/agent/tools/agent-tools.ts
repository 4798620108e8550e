import {
  executeCodeArgsSchema,
  listDirectoryArgsSchema,
  readFileArgsSchema,
  runCommandArgsSchema,
  writeFileArgsSchema,
} from '@weft/contracts';
import { type AgentTool, defineTool } from './define-tool';
import { formatExecResult } from './exec-format';

const readFile = defineTool('read_file', {
  description: 'Read a UTF-8 text file of the workspace.',
  parameters: readFileArgsSchema,
  execute: (args, ctx) => ctx.files.call({ workspaceId: ctx.workspaceId, tool: 'read_file', arguments: args }),
});

const writeFile = defineTool('write_file', {
  description: 'Create or overwrite a file of the workspace with the given content.',
  parameters: writeFileArgsSchema,
  execute: (args, ctx) => ctx.files.call({ workspaceId: ctx.workspaceId, tool: 'write_file', arguments: args }),
});

const listDirectory = defineTool('list_directory', {
  description: 'List the entries (name, type, size) of a folder of the workspace.',
  parameters: listDirectoryArgsSchema,
  execute: (args, ctx) => ctx.files.call({ workspaceId: ctx.workspaceId, tool: 'list_directory', arguments: args }),
});

const runCommand = defineTool('run_command', {
  description:
    'Run a shell command (bash) in a throwaway container with the workspace mounted read-only; returns exit code, stdout and stderr.',
  parameters: runCommandArgsSchema,
  execute: async (args, ctx) =>
    formatExecResult(
      await ctx.sandbox.exec({ mode: 'command', workspaceId: ctx.workspaceId, command: args.command, cwd: args.cwd, writable: false }),
    ),
});

const executeCode = defineTool('execute_code', {
  description: 'Run a snippet of python, node or bash code in a throwaway container; returns exit code, stdout and stderr.',
  parameters: executeCodeArgsSchema,
  execute: async (args, ctx) => formatExecResult(await ctx.sandbox.exec({ mode: 'code', workspaceId: ctx.workspaceId, ...args })),
});

/** Every tool the agent offers the model, by name. */
export const agentTools: ReadonlyMap<string, AgentTool> = new Map(
  [readFile, writeFile, listDirectory, runCommand, executeCode].map((tool) => [tool.definition.name, tool]),
);
