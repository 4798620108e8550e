import { FileToolName, type ToolCallRequest, executeCodeArgsSchema, fileToolSpecs, runCommandArgsSchema } from '@weft/contracts';
import { type AgentTool, defineTool } from './define-tool';
import { formatExecResult } from './exec-format';
import { liveOutput } from './live-output';

/** The tools worker's file tools, offered as the contracts declare them and dispatched to it as they are. */
const fileTools = FileToolName.options.map((name) =>
  defineTool(name, {
    description: fileToolSpecs[name].description,
    parameters: fileToolSpecs[name].parameters,
    // `args` was parsed with this tool's own schema, so it is the arguments of `name`.
    execute: (args, ctx) => ctx.files.call({ workspaceId: ctx.workspaceId, tool: name, arguments: args } as ToolCallRequest),
  }),
);

const runCommand = defineTool('run_command', {
  description:
    'Run a shell command (bash) in a throwaway container with the workspace mounted read-only; returns exit code, stdout and stderr.',
  parameters: runCommandArgsSchema,
  execute: async (args, ctx) => {
    const live = liveOutput(ctx);
    const result = await ctx.sandbox.exec(
      {
        mode: 'command',
        workspaceId: ctx.workspaceId,
        command: args.command,
        cwd: args.cwd,
        writable: false,
        network: ctx.sandboxNetwork ?? 'none',
      },
      { signal: ctx.signal, onOutput: live.onOutput },
    );
    await live.settled();
    return formatExecResult(result);
  },
});

const executeCode = defineTool('execute_code', {
  description:
    'Run a snippet of python, node, bash or lua code in a throwaway container without the workspace ' +
    '(use run_command to work on workspace files); returns exit code, stdout and stderr.',
  parameters: executeCodeArgsSchema,
  // No workspace: snippets are served by the sandbox's warm pool, whose containers cannot carry a mount.
  execute: async (args, ctx) =>
    formatExecResult(
      await ctx.sandbox.exec({ mode: 'code', ...args, network: ctx.sandboxNetwork ?? 'none' }, { signal: ctx.signal }),
    ),
});

/** Every tool the agent offers the model, by name. */
export const agentTools: ReadonlyMap<string, AgentTool> = new Map(
  [...fileTools, runCommand, executeCode].map((tool) => [tool.definition.name, tool]),
);
