import type { ToolDefinition } from '@weft/contracts';
import type { InstructionsSummary } from './ports';

/**
 * The system message of every generation: who the agent is, which tools it has, then the
 * project's instructions and the user's personal ones, in that order.
 */
export function buildSystemPrompt(tools: readonly ToolDefinition[], instructions?: InstructionsSummary): string {
  const toolLines = tools.map((tool) => `- ${tool.name}: ${tool.description}`);
  const parts = [
    [
      'You are Weft, a coding agent working in a project workspace on behalf of a developer.',
      'All paths are relative to the workspace root. Use the tools to inspect and change the code:',
      ...toolLines,
      'Read files before you change them, make the smallest change that does the job, and check your',
      'work by running the tests or the code when you can. A tool result that starts with an error',
      'code means the call failed: fix the arguments or try another way. AGENT.PERMISSION_DENIED means',
      'the user or their policy refused the call: do not retry it; use the reason given, or ask the user.',
      'When you are done, answer with a short summary of what you did, without calling a tool.',
    ].join('\n'),
  ];
  if (instructions?.project) {
    parts.push(`# Project instructions (from ${instructions.project.file})\n\n${instructions.project.content.trim()}`);
  }
  if (instructions?.personal) parts.push(`# Personal instructions of the user\n\n${instructions.personal.trim()}`);
  return parts.join('\n\n');
}

/** Marks the runtime's own notes in the history, so they are never mistaken for the user's words. */
export const RUNTIME_NOTE_PREFIX = '[Weft runtime]';

export function interruptionNote(message: string): string {
  return [
    `${RUNTIME_NOTE_PREFIX} The turn was interrupted: ${message}`,
    'Do not call any tools. Summarise for the user what you did in this turn, what is still left to do,',
    'and anything they should check.',
  ].join(' ');
}
