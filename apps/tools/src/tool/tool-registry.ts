import { AppError, ErrorCode, type FileToolName, type ToolCallRequest, type ToolCallResult } from '@weft/contracts';
import { fsFailure } from '../workspace/fs-failure';
import type { WorkspaceStore } from '../workspace/workspace-store';
import { createDirectoryTool } from './create-directory.tool';
import { deleteFileTool } from './delete-file.tool';
import { editFileTool } from './edit-file.tool';
import { globTool } from './glob.tool';
import { listDirectoryTool } from './list-directory.tool';
import { moveFileTool } from './move-file.tool';
import { readFileTool } from './read-file.tool';
import { searchFilesTool } from './search-files.tool';
import type { Tool, ToolContext, ToolLimits } from './tool';
import { truncateOutput } from './truncate';
import { writeFileTool } from './write-file.tool';

const tools: Record<FileToolName, Tool> = {
  read_file: readFileTool,
  write_file: writeFileTool,
  edit_file: editFileTool,
  list_directory: listDirectoryTool,
  search_files: searchFilesTool,
  glob: globTool,
  create_directory: createDirectoryTool,
  move_file: moveFileTool,
  delete_file: deleteFileTool,
};

/** Failures the model caused and can correct: returned as results, never thrown. */
const expectedFailures = new Set<string>([
  ErrorCode.PathOutsideWorkspace,
  ErrorCode.InvalidPath,
  ErrorCode.FileNotFound,
  ErrorCode.FileTooLarge,
  ErrorCode.NotAFile,
  ErrorCode.BinaryFile,
  ErrorCode.NotADirectory,
  ErrorCode.ValidationFailed,
  ErrorCode.Conflict,
  ErrorCode.Forbidden,
  // The server's, not the model's: the model tells the user, and the turn goes on (nothing was written).
  ErrorCode.WorkspaceDiskFull,
]);

export class ToolRegistry {
  constructor(
    private readonly workspaces: WorkspaceStore,
    private readonly limits: ToolLimits,
    private readonly search: ToolContext['search'],
  ) {}

  async call(request: ToolCallRequest): Promise<ToolCallResult> {
    const tool = tools[request.tool];
    const root = await this.workspaces.root(request.workspaceId);
    try {
      const args = parseArguments(tool, request.arguments);
      const output = await tool.execute(args, { root, limits: this.limits, search: this.search });
      return { isError: false, output: truncateOutput(output, this.limits.outputMaxBytes) };
    } catch (error) {
      const failure = error instanceof AppError ? error : fsFailure(error, root);
      if (!failure || !expectedFailures.has(failure.code)) throw error;
      return { isError: true, errorCode: failure.code, output: truncateOutput(failure.message, this.limits.outputMaxBytes) };
    }
  }
}

function parseArguments(tool: Tool, args: unknown): unknown {
  const parsed = tool.parameters.safeParse(args);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`);
  throw new AppError(ErrorCode.ValidationFailed, `Invalid arguments for ${tool.id}: ${problems.join('; ')}`);
}
