import { type StoredSessionEvent, assertUnreachable } from '@weft/contracts';

/**
 * The running turn waits for the model: it was asked (the turn started, a tool's result came
 * back, a subtask began) and has not written anything yet. A large prompt takes the model
 * seconds to read (prefill) before its first token; the page shows what it reads and for how long.
 */
export interface ModelWait {
  /** When the model was asked: the `at` of the event that handed it the next step. */
  since: string;
  /** What it is reading, as the sentence "… is reading {what}" ends. */
  what: string;
  /** The model is not loaded on its worker yet and is loading (models on demand). */
  loading?: { model: string; progress: number };
}

/**
 * The wait after `event`, from the wait before it. Only what the log says: an event after which
 * the runtime asks the model starts a wait; one that shows the model writing, a tool running or a
 * person being asked ends it; the turn's end ends it.
 */
export function modelWaitAfter(current: ModelWait | null, event: StoredSessionEvent): ModelWait | null {
  const wait = (what: string): ModelWait => ({ since: event.at, what });
  switch (event.type) {
    case 'turn.started':
      return wait(event.resumed ? 'the conversation again' : 'your message');
    case 'tool.completed':
      return wait(`the result of ${event.name}`);
    case 'context.compacted':
      return wait('the summarised conversation');
    case 'plan.created':
      return wait('the plan');
    case 'subtask.started':
      return wait(`subtask ${event.index} of ${event.total}: ${event.title}`);
    case 'subtask.completed':
      return wait(event.index < event.total ? 'the next subtask' : "the subtasks' reports");
    case 'delegation.started':
      return wait(`the task from ${event.from}`);
    case 'delegation.completed':
      return wait(`the report from ${event.to}`);
    case 'turn.interrupted':
      return wait('why it was stopped, to sum up');
    case 'chain.step.started':
      return event.kind === 'prompt' ? wait(`chain step ${event.step}`) : null;
    case 'model.loading':
      return { ...(current ?? wait('your message')), loading: { model: event.model, progress: event.progress } };
    case 'message.delta':
    case 'message.resync':
    case 'message.completed':
    case 'tool.called':
    case 'tool.output':
    case 'permission.requested':
    case 'permission.decided':
    case 'chain.step.completed':
    case 'turn.completed':
    case 'turn.failed':
    case 'turn.cancelled':
    case 'message.created':
      return null;
    case 'note.saved':
    case 'mcp.server.unavailable':
    case 'generation.resumed':
      return current;
    default:
      return assertUnreachable(event);
  }
}
