import type { FileToolName } from '@weft/contracts';
import type { z } from 'zod';

export interface ToolContext {
  /** Real path of the workspace root. */
  root: string;
  limits: ToolLimits;
}

export interface ToolLimits {
  readFileMaxBytes: number;
  /** Every tool's output is cut here, in one place (see `truncateOutput`). */
  outputMaxBytes: number;
}

/**
 * A file tool: arguments are parsed with `parameters` before `execute` sees them. Expected
 * failures are thrown as AppError with a TOOLS.* code; the registry turns them into results.
 */
export interface Tool<P extends z.ZodType = z.ZodType> {
  id: FileToolName;
  description: string;
  parameters: P;
  execute(args: z.infer<P>, context: ToolContext): Promise<string>;
}

export function defineTool<P extends z.ZodType>(id: FileToolName, definition: Omit<Tool<P>, 'id'>): Tool<P> {
  return { id, ...definition };
}
