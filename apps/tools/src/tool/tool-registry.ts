import { AppError, ErrorCode, type FileToolName, type ToolCallRequest, type ToolCallResult } from '@weft/contracts';
import type { WorkspaceStore } from '../workspace/workspace-store';
import { listDirectoryTool } from './list-directory.tool';
import { readFileTool } from './read-file.tool';
import type { Tool, ToolLimits } from './tool';
import { truncateOutput } from './truncate';
import { writeFileTool } from './write-file.tool';

const tools: Record<FileToolName, Tool> = {
  read_file: readFileTool,
  write_file: writeFileTool,
  list_directory: listDirectoryTool,
};

/** Failures the model caused and can correct: returned as results, never thrown. */
const expectedFailures = new Set<string>([
  ErrorCode.PathOutsideWorkspace,
  ErrorCode.FileNotFound,
  ErrorCode.FileTooLarge,
  ErrorCode.NotAFile,
  ErrorCode.BinaryFile,
  ErrorCode.NotADirectory,
  ErrorCode.ValidationFailed,
]);

export class ToolRegistry {
  constructor(
    private readonly workspaces: WorkspaceStore,
    private readonly limits: ToolLimits,
  ) {}

  async call(request: ToolCallRequest): Promise<ToolCallResult> {
    const tool = tools[request.tool];
    const root = await this.workspaces.root(request.workspaceId);
    try {
      const args = parseArguments(tool, request.arguments);
      const output = await tool.execute(args, { root, limits: this.limits });
      return { isError: false, output: truncateOutput(output, this.limits.outputMaxBytes) };
    } catch (error) {
      if (!(error instanceof AppError) || !expectedFailures.has(error.code)) throw error;
      return { isError: true, errorCode: error.code, output: truncateOutput(error.message, this.limits.outputMaxBytes) };
    }
  }
}

function parseArguments(tool: Tool, args: unknown): unknown {
  const parsed = tool.parameters.safeParse(args);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new AppError(ErrorCode.ValidationFailed, `Invalid arguments for ${tool.id}: ${problems.join('; ')}`);
}
