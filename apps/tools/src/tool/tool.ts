import { type FileToolArgs, type FileToolName, fileToolSpecs } from '@weft/contracts';
import type { z } from 'zod';
import type { RipgrepAdapter } from '../search/ripgrep.adapter';

export interface ToolContext {
  /** Real path of the workspace root. */
  root: string;
  limits: ToolLimits;
  search: Pick<RipgrepAdapter, 'search'>;
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
export interface Tool {
  id: FileToolName;
  description: string;
  parameters: z.ZodType;
  execute(args: unknown, context: ToolContext): Promise<string>;
}

/** Description and schema come from the contracts, where the gateway reads them too. */
export function defineTool<N extends FileToolName>(
  id: N,
  execute: (args: FileToolArgs<N>, context: ToolContext) => Promise<string>,
): Tool {
  const { description, parameters } = fileToolSpecs[id];
  return { id, description, parameters, execute: (args, context) => execute(args as FileToolArgs<N>, context) };
}
