import {
  AppError,
  ErrorCode,
  FileToolName,
  type ToolCallRequest,
  executeCodeArgsSchema,
  fileToolSpecs,
  runCommandArgsSchema,
} from '@weft/contracts';
import { type AgentTool, type ToolContext, defineTool } from './define-tool';
import { formatExecResult } from './exec-format';
import { liveOutput } from './live-output';

/** File tools that add to the workspace: refused while the owner is over quota (deletes are not). */
const WRITING_FILE_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file', 'create_directory', 'move_file']);

/** The tools worker's file tools, offered as the contracts declare them and dispatched to it as they are. */
const fileTools = FileToolName.options.map((name) =>
  defineTool(name, {
    description: fileToolSpecs[name].description,
    parameters: fileToolSpecs[name].parameters,
    execute: async (args, ctx) => {
      if (WRITING_FILE_TOOLS.has(name)) await ctx.quota?.assertCanWrite();
      // `args` was parsed with this tool's own schema, so it is the arguments of `name`.
      return ctx.files.call({ workspaceId: ctx.workspaceId, tool: name, arguments: args } as ToolCallRequest);
    },
  }),
);

const runCommand = defineTool('run_command', {
  description:
    "Run a shell command (bash) in the session's sandbox container, where the workspace is mounted at /workspace " +
    '(writable unless the session is read-only; .weft/ is always read-only). The container is kept between ' +
    'commands, so installed dependencies (.venv, node_modules) stay. Package registries are reachable through a ' +
    'proxy when the session allows it. Returns exit code, stdout, stderr and the files the command changed.',
  parameters: runCommandArgsSchema,
  execute: async (args, ctx) => {
    const { writable, notes } = await writeAccess(ctx);
    const live = liveOutput(ctx);
    const result = await ctx.sandbox.exec(
      {
        mode: 'command',
        workspaceId: ctx.workspaceId,
        command: args.command,
        cwd: args.cwd,
        writable,
        network: ctx.sandboxNetwork ?? 'none',
        ...(ctx.session ? { session: ctx.session } : {}),
        ...(ctx.sandboxImage ? { image: ctx.sandboxImage } : {}),
      },
      { signal: ctx.signal, onOutput: live.onOutput },
    );
    await live.settled();
    const grew = result.changes && (result.changes.created.length + result.changes.modified.length + result.changes.folders.length > 0);
    if (grew && ctx.quota) {
      const usage = await ctx.quota.measure();
      if (usage.over) {
        notes.push(
          `${ErrorCode.WorkspaceQuotaExceeded}: the workspaces now hold ${usage.usedBytes} bytes of ${usage.quotaBytes}; ` +
            'the next write will be refused until files are deleted',
        );
      }
    }
    return formatExecResult(result, notes);
  },
});

/** A session's commands write to its workspace unless it is read-only, or its owner is over quota. */
async function writeAccess(ctx: ToolContext): Promise<{ writable: boolean; notes: string[] }> {
  if (ctx.sandboxWorkspace !== 'read-write') return { writable: false, notes: [] };
  try {
    await ctx.quota?.assertCanWrite();
    return { writable: true, notes: [] };
  } catch (error) {
    if (!(error instanceof AppError) || error.code !== ErrorCode.WorkspaceQuotaExceeded) throw error;
    return { writable: false, notes: [`${error.code}: ${error.message}. This run had the workspace read-only.`] };
  }
}

const executeCode = defineTool('execute_code', {
  description:
    'Run a snippet of python, node, bash or lua code in a throwaway container without the workspace ' +
    '(use run_command to work on workspace files); returns exit code, stdout and stderr.',
  parameters: executeCodeArgsSchema,
  // No workspace: snippets are served by the sandbox's warm pool, whose containers cannot carry a
  // mount. The proxy network belongs to a session's container: snippets get none.
  execute: async (args, ctx) =>
    formatExecResult(
      await ctx.sandbox.exec(
        { mode: 'code', ...args, network: ctx.sandboxNetwork === 'egress' ? 'egress' : 'none' },
        { signal: ctx.signal },
      ),
    ),
});

/** Every tool the agent offers the model, by name. */
export const agentTools: ReadonlyMap<string, AgentTool> = new Map(
  [...fileTools, runCommand, executeCode].map((tool) => [tool.definition.name, tool]),
);
