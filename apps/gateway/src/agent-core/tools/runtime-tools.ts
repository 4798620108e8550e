import { ErrorCode, MAX_NOTE_CHARS } from '@weft/contracts';
import { z } from 'zod';
import { type AgentTool, defineTool } from './define-tool';


export const remember = defineTool('remember', {
  description:
    'Store a short note for this workspace (a fact, a convention, a decision, a hand-over for the other model). ' +
    'Notes are shown to every model that works here, in this session and later ones.',
  parameters: z.object({ note: z.string().min(1).max(MAX_NOTE_CHARS).describe('the note, one or two sentences') }),
  execute: async (args, ctx) => {
    if (!ctx.remember) return { isError: true, output: `${ErrorCode.UnknownTool}: notes are not available here` };
    const note = await ctx.remember(args.note);
    return { isError: false, output: `noted (${note.id})` };
  },
});

export const delegate = defineTool('delegate', {
  description:
    'Hand a well-defined task to the junior model, which works on it in this workspace with its own tools and ' +
    'the same permissions, then reports back. Review its result before you tell the user anything: check the ' +
    'files it changed, and fix or redo what is wrong. Give it everything it needs in the task.',
  parameters: z.object({ task: z.string().min(1).max(20_000).describe('what to do, with the paths and details it needs') }),
  resumable: true,
  execute: async (args, ctx) => {
    if (!ctx.delegate || !ctx.callId) return { isError: true, output: `${ErrorCode.NoModelForRole}: no junior model to delegate to` };
    return ctx.delegate(args.task, ctx.callId);
  },
});

/** The tools of one loop: the workers' tools and `remember`, plus `delegate` for a senior with a junior to hand to. */
export function toolsFor(base: ReadonlyMap<string, AgentTool>, canDelegate: boolean): ReadonlyMap<string, AgentTool> {
  const tools = new Map(base);
  tools.set(remember.definition.name, remember);
  if (canDelegate) tools.set(delegate.definition.name, delegate);
  return tools;
}
