import { AppError, ErrorCode, type ToolCall } from '@weft/contracts';
import type { ToolOutcome } from '../ports';
import type { AgentTool, ToolContext } from './define-tool';

/** What the model sees of one tool's output at most; the rest is cut here, in one place. */
export const MAX_TOOL_OUTPUT_CHARS = 32_000;

/** Failures of the platform rather than of the call: they end the turn instead of going to the model. */
const TURN_FATAL_CODES: ReadonlySet<ErrorCode> = new Set([
  ErrorCode.Timeout,
  ErrorCode.NoResponders,
  ErrorCode.SandboxUnavailable,
  ErrorCode.ToolsUnavailable,
  ErrorCode.Internal,
]);

/** The permission check: a refusal becomes the call's result, and the tool does not run. */
export type AuthorizeCall = (call: ToolCall) => Promise<{ allowed: true } | { allowed: false; output: string }>;

/**
 * Runs one call of the model. An unknown tool, bad arguments, a refused permission or a domain
 * error from a worker becomes an error observation the model can act on; a platform failure is thrown.
 */
export async function runToolCall(
  tools: ReadonlyMap<string, AgentTool>,
  call: ToolCall,
  context: ToolContext,
  authorize?: AuthorizeCall,
): Promise<ToolOutcome> {
  const tool = tools.get(call.name);
  if (!tool) {
    const known = [...tools.keys()].join(', ');
    return { isError: true, output: `${ErrorCode.UnknownTool}: there is no tool "${call.name}"; available: ${known}` };
  }
  // The inference worker checked the arguments against the tool's schema and found them wanting.
  if (call.argumentsError) {
    return { isError: true, output: truncate(`${call.argumentsError.code}: ${call.argumentsError.message}`) };
  }
  if (authorize) {
    const authorization = await authorize(call);
    if (!authorization.allowed) return { isError: true, output: truncate(authorization.output) };
  }
  try {
    const outcome = await tool.run(call.arguments, { ...context, callId: call.id });
    return { isError: outcome.isError, output: truncate(outcome.output) };
  } catch (error) {
    if (error instanceof AppError && !TURN_FATAL_CODES.has(error.code)) {
      return { isError: true, output: truncate(`${error.code}: ${error.message}`) };
    }
    throw error;
  }
}

export function truncate(text: string, max = MAX_TOOL_OUTPUT_CHARS): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n[output truncated: ${text.length - max} more characters]`;
}
