import { type ChatMessage, type Subtask, subtaskSchema } from '@weft/contracts';
import { z } from 'zod';
import type { AgentLoop, LoopSpec } from './agent-loop';
import type { PlanProgress, ThreadRef, TurnStore } from '../agent-core/ports';
import { RUNTIME_NOTE_PREFIX } from '../agent-core/runtime-note';
import type { AgentRole } from './system-prompt';
import { subtaskThreadId } from './thread';
import type { LoopOutcome, TurnContext } from '../agent-core/turn-context';

/** A plan splits into at most this many subtasks; more is a model that lost the thread. */
export const MAX_SUBTASKS = 12;

export const PLAN_NOTE = [
  `${RUNTIME_NOTE_PREFIX} Planning mode. Before changing anything, write a short architecture plan for the request`,
  'above: the approach, the files and components involved, and how the result will be checked. Do not call any tools.',
].join(' ');

export const SUBTASKS_NOTE = [
  `${RUNTIME_NOTE_PREFIX} Now split the plan into an ordered list of subtasks, each small enough to do and check on its own.`,
  `Answer with JSON only: {"subtasks": [{"title": "…", "description": "…"}]}, at most ${MAX_SUBTASKS} subtasks.`,
].join(' ');

const subtaskListSchema = z.object({ subtasks: z.array(subtaskSchema).min(1) });
const SUBTASKS_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  properties: {
    subtasks: {
      type: 'array',
      minItems: 1,
      maxItems: MAX_SUBTASKS,
      items: {
        type: 'object',
        properties: { title: { type: 'string', maxLength: 200 }, description: { type: 'string', maxLength: 2000 } },
        required: ['title', 'description'],
      },
    },
  },
  required: ['subtasks'],
};

/** File tools whose `path` (or `to`) is a file the subtask created or changed. */
const WRITING_TOOLS: Readonly<Record<string, string>> = {
  write_file: 'path',
  edit_file: 'path',
  create_directory: 'path',
  move_file: 'to',
};

type SpecFor = (turn: TurnContext, thread: ThreadRef, role: AgentRole) => Promise<LoopSpec>;

/**
 * Planning mode: the model writes an architecture plan, then a list of subtasks; each subtask
 * runs as its own loop, in its own conversation, with the plan, the finished subtasks and the
 * files created so far in its context (the loop's guard rails stop a subtask that hits the same
 * error three times); the model then sums the work up for the user. How far it
 * got is stored after every subtask, so a rerun carries on from there.
 */
export class Planner {
  constructor(
    private readonly loop: AgentLoop,
    private readonly store: TurnStore,
    private readonly specFor: SpecFor,
  ) {}

  async run(turn: TurnContext): Promise<LoopOutcome> {
    const mainThread: ThreadRef = { sessionId: turn.sessionId };
    const main = await this.specFor(turn, mainThread, 'agent');
    const progress = (await this.existingPlan(turn)) ?? (await this.makePlan(turn, main));
    const total = progress.subtasks.length;
    let iterations = 2;
    for (let index = progress.finished.length; index < total; index++) {
      const subtask = progress.subtasks[index] as Subtask;
      const threadId = subtaskThreadId(turn.turnId, index + 1);
      const thread: ThreadRef = { sessionId: turn.sessionId, threadId };
      const position = { turnId: turn.turnId, threadId, index: index + 1, total, title: subtask.title };
      await turn.reportProgress({ phase: 'subtask', index: index + 1, total, title: subtask.title });
      if ((await this.store.messages(thread)).length === 0) {
        await turn.emit({ type: 'subtask.started', ...position });
        await this.store.appendMessage(thread, { role: 'user', content: subtaskBrief(progress, index) });
      }
      const spec = await this.specFor(turn, thread, 'subtask');
      const outcome = await this.loop.run(turn, spec);
      iterations += outcome.iterations;
      const status = outcome.stopReason ? 'stopped' : 'completed';
      progress.finished.push({ status, summary: outcome.text, files: filesWritten(await this.store.messages(thread)) });
      await this.store.saveProgress(turn.sessionId, turn.turnId, progress);
      await turn.emit({ type: 'subtask.completed', ...position, status, summary: outcome.text });
    }
    await turn.reportProgress({ phase: 'summary' });
    const text = await this.loop.answer(turn, main, finalNote(progress));
    return { text, iterations: iterations + 1 };
  }

  private async existingPlan(turn: TurnContext): Promise<PlanProgress | undefined> {
    const stored = await this.store.progress(turn.sessionId, turn.turnId);
    return stored?.kind === 'plan' ? stored : undefined;
  }

  private async makePlan(turn: TurnContext, main: LoopSpec): Promise<PlanProgress> {
    await turn.reportProgress({ phase: 'planning' });
    const plan = await this.loop.answer(turn, main, PLAN_NOTE);
    const listed = await this.loop.answer(turn, main, SUBTASKS_NOTE, SUBTASKS_JSON_SCHEMA);
    const request = (await this.store.messages(main.thread)).findLast((m) => m.role === 'user' && !m.content.startsWith(RUNTIME_NOTE_PREFIX));
    const subtasks = parseSubtasks(listed) ?? [{ title: 'Carry out the request', description: request?.content ?? plan }];
    const progress: PlanProgress = { kind: 'plan', plan, subtasks, finished: [] };
    await this.store.saveProgress(turn.sessionId, turn.turnId, progress);
    await turn.emit({ type: 'plan.created', turnId: turn.turnId, plan, subtasks });
    turn.log.info({ subtasks: subtasks.length }, 'plan created');
    return progress;
  }
}

/**
 * The model's list of subtasks: the JSON asked for (also inside a code fence), or else numbered
 * or bulleted lines; undefined when there is none, and the whole request becomes one subtask.
 */
export function parseSubtasks(text: string): Subtask[] | undefined {
  const json = /\{[\s\S]*\}/.exec(text)?.[0];
  if (json) {
    try {
      const parsed = subtaskListSchema.safeParse(JSON.parse(json));
      if (parsed.success) return parsed.data.subtasks.slice(0, MAX_SUBTASKS);
    } catch {
      // Not JSON after all: try the list form below.
    }
  }
  const items = text
    .split('\n')
    .map((line) => /^\s*(?:\d+[.)]|[-*])\s+(.+)$/.exec(line)?.[1]?.trim())
    .filter((item): item is string => Boolean(item));
  if (items.length === 0) return undefined;
  return items.slice(0, MAX_SUBTASKS).map((item) => {
    const [title, ...rest] = item.split(/:\s+|\s+[-–—]\s+/);
    return { title: (title ?? item).replace(/\*\*/g, '').trim(), description: rest.join(': ').trim() || item };
  });
}

/** What a subtask's loop starts from: its own job, the plan, the finished subtasks and the files so far. */
export function subtaskBrief(progress: PlanProgress, index: number): string {
  const subtask = progress.subtasks[index] as Subtask;
  const done = progress.finished.map((f, i) => `${i + 1}. ${progress.subtasks[i]?.title ?? ''} (${f.status}): ${f.summary.trim()}`);
  const files = [...new Set(progress.finished.flatMap((f) => f.files))];
  return [
    `${RUNTIME_NOTE_PREFIX} Subtask ${index + 1} of ${progress.subtasks.length}: ${subtask.title}`,
    '',
    subtask.description,
    '',
    '## The plan',
    progress.plan.trim(),
    '',
    '## Finished subtasks',
    done.length > 0 ? done.join('\n') : '(none yet)',
    '',
    '## Files created or changed so far',
    files.length > 0 ? files.map((f) => `- ${f}`).join('\n') : '(none yet)',
  ].join('\n');
}

function finalNote(progress: PlanProgress): string {
  const results = progress.finished.map((f, i) => `${i + 1}. ${progress.subtasks[i]?.title ?? ''} (${f.status}): ${f.summary.trim()}`);
  return [
    `${RUNTIME_NOTE_PREFIX} All ${progress.subtasks.length} subtasks have run. Their reports:`,
    '',
    ...results,
    '',
    'Summarise for the user what was done, what is left, and anything they should check. Do not call any tools.',
  ].join('\n');
}

/** Paths the conversation's successful write calls touched, in order. */
function filesWritten(messages: readonly ChatMessage[]): string[] {
  const failed = new Set(messages.flatMap((m) => (m.role === 'tool' && /^[A-Z]+\.[A-Z_]+:/.test(m.content) ? [m.toolCallId] : [])));
  const paths = messages.flatMap((m) =>
    m.role === 'assistant'
      ? (m.toolCalls ?? []).flatMap((call) => {
          const field = WRITING_TOOLS[call.name];
          const path = field ? call.arguments[field] : undefined;
          return typeof path === 'string' && !failed.has(call.id) ? [path] : [];
        })
      : [],
  );
  return [...new Set(paths)];
}
