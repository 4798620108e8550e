import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from './api-client';
import { UnattendedPermissionError } from './errors';
import { refuseUnattended } from './permission-prompt';
import { TurnRenderer, colorsFor } from './render';
import { completedTurn, hangingTurn, waitingForAnswerTurn, writingTurn } from './testing/fixtures';
import { startStubGateway, type StubGateway } from './testing/stub-gateway';
import { runTurn } from './turn';

const KEY = 'weft_test';

function renderer(): { renderer: TurnRenderer; output: () => string } {
  let text = '';
  return { renderer: new TurnRenderer({ write: (chunk: string) => (text += chunk) }, colorsFor({}, { NO_COLOR: '1' })), output: () => text };
}

describe('runTurn', () => {
  let gateway: StubGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('asks the gateway to cancel the turn and follows it to turn.cancelled', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [hangingTurn] });
    const { renderer: r, output } = renderer();
    const cancel = new AbortController();
    const following = runTurn({ client: new ApiClient(gateway.url, KEY), renderer: r }, 'ses_1', 'think', { cancel: cancel.signal });
    await expect.poll(output).toContain('Thinking hard');
    cancel.abort();

    expect(await following).toEqual({ status: 'cancelled', by: 'usr_1', turnId: 'turn_1', workspaceId: 'ws_1', touchedFiles: false });
    expect(gateway.cancels).toEqual(['turn_1']);
    expect(output()).toContain('✗ turn cancelled');
  });

  it('cancels a turn whose cancel was asked for before it started', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [hangingTurn] });
    const cancel = new AbortController();
    cancel.abort();
    const outcome = await runTurn({ client: new ApiClient(gateway.url, KEY), renderer: renderer().renderer }, 'ses_1', 'think', { cancel: cancel.signal });
    expect(outcome.status).toBe('cancelled');
  });

  it('stops following at once when left, without cancelling', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [hangingTurn] });
    const { renderer: r, output } = renderer();
    const leave = new AbortController();
    const following = runTurn({ client: new ApiClient(gateway.url, KEY), renderer: r }, 'ses_1', 'think', { leave: leave.signal });
    await expect.poll(output).toContain('Thinking hard');
    leave.abort();

    await expect(following).rejects.toThrow();
    expect(gateway.cancels).toEqual([]);
  });

  it('closes an open question when the turn is cancelled, without answering it', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [waitingForAnswerTurn] });
    const cancel = new AbortController();
    let asked = false;
    const askPermission = (_event: unknown, signal: AbortSignal) =>
      new Promise<undefined>((_resolve, reject) => {
        asked = true;
        signal.addEventListener('abort', () => reject(signal.reason as Error));
      });
    const following = runTurn({ client: new ApiClient(gateway.url, KEY), renderer: renderer().renderer, askPermission }, 'ses_1', 'test it', { cancel: cancel.signal });
    await expect.poll(() => asked).toBe(true);
    cancel.abort();

    expect((await following).status).toBe('cancelled');
    expect(gateway.answers).toEqual([]);
  });

  it('cancels the turn when no one can answer its question, and says so', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [waitingForAnswerTurn] });
    const following = runTurn(
      { client: new ApiClient(gateway.url, KEY), renderer: renderer().renderer, askPermission: refuseUnattended('input is not a terminal') },
      'ses_1',
      'test it',
    );

    await expect(following).rejects.toBeInstanceOf(UnattendedPermissionError);
    await expect(following).rejects.toThrow('the agent asks permission for run_command: npm test, and no one can answer here (input is not a terminal)');
    expect(gateway.cancels).toEqual(['turn_1']);
  });

  it('tells a turn that wrote files from one whose only writer failed', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [writingTurn, completedTurn] });
    const client = new ApiClient(gateway.url, KEY);
    expect((await runTurn({ client, renderer: renderer().renderer }, 'ses_1', 'write')).touchedFiles).toBe(true);
    // completedTurn's run_command failed and its read_file writes nothing.
    expect((await runTurn({ client, renderer: renderer().renderer }, 'ses_1', 'read')).touchedFiles).toBe(false);
  });
});
