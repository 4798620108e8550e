import type { Scripted } from './stub-gateway';

/** A turn that streams text, reads a file, fails a command, and completes. */
export const completedTurn: readonly Scripted[] = [
  { type: 'turn.started', model: 'tiny' },
  { type: 'message.delta', text: 'Let me ' },
  { type: 'message.delta', text: 'look.' },
  { type: 'message.completed', content: 'Let me look.' },
  { type: 'tool.called', call: { id: 'c1', name: 'read_file', arguments: { path: 'a.txt' } } },
  { type: 'tool.completed', callId: 'c1', name: 'read_file', isError: false, output: 'hello\nworld' },
  { type: 'tool.called', call: { id: 'c2', name: 'run_command', arguments: { command: 'npm test' } } },
  { type: 'tool.completed', callId: 'c2', name: 'run_command', isError: true, output: 'exit 1: test failed' },
  { type: 'message.delta', text: 'Done.' },
  { type: 'message.completed', content: 'Done.' },
  { type: 'turn.completed', usage: { promptTokens: 10, completionTokens: 5 }, iterations: 3 },
];

export const failedTurn: readonly Scripted[] = [
  { type: 'turn.started', model: 'tiny' },
  { type: 'message.delta', text: 'Thinking' },
  { type: 'turn.failed', code: 'INFERENCE.GENERATION_FAILED', message: 'the model crashed' },
];

/** A turn that stops to ask before a command runs (the stub plays on without waiting). */
export const askingTurn: readonly Scripted[] = [
  { type: 'turn.started', model: 'tiny' },
  {
    type: 'permission.requested',
    requestId: 'perm_1',
    callId: 'c1',
    call: { id: 'c1', name: 'run_command', arguments: { command: 'npm test' } },
    subject: 'npm test',
    reasons: ['commands ask by default'],
    suggestedRules: ['Bash(npm test)'],
    expiresAt: new Date(0).toISOString(),
  },
  { type: 'tool.completed', callId: 'c1', name: 'run_command', isError: false, output: 'ok' },
  { type: 'message.completed', content: 'Tests pass.' },
  { type: 'turn.completed', usage: { promptTokens: 10, completionTokens: 5 }, iterations: 2 },
];

/** A turn that streams a little and then waits (on a model that never finishes) until it is cancelled. */
export const hangingTurn: readonly Scripted[] = [
  { type: 'turn.started', model: 'tiny' },
  { type: 'message.delta', text: 'Thinking hard' },
];

/** A turn that asks and then waits for the answer (the stub never answers for it). */
export const waitingForAnswerTurn: readonly Scripted[] = askingTurn.slice(0, 2);

/** A turn that writes a file and completes. */
export const writingTurn: readonly Scripted[] = [
  { type: 'turn.started', model: 'tiny' },
  { type: 'tool.called', call: { id: 'c1', name: 'write_file', arguments: { path: 'a.txt', content: 'hello, world\n' } } },
  { type: 'tool.completed', callId: 'c1', name: 'write_file', isError: false, output: 'wrote a.txt' },
  { type: 'message.completed', content: 'Updated a.txt.' },
  { type: 'turn.completed', usage: { promptTokens: 10, completionTokens: 5 }, iterations: 2 },
];

/** What the stub's patch route returns after `writingTurn`. */
export const writingTurnPatch = 'diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-hello\n+hello, world\n';
