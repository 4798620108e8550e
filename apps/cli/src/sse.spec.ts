import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StoredSessionEvent } from '@weft/contracts';
import { createColors } from 'picocolors';
import { afterEach, describe, expect, it } from 'vitest';
import { ApiClient } from './api-client';
import { TurnRenderer } from './render';
import { followEvents, isAfter } from './sse';
import { completedTurn } from './testing/fixtures';
import { startStubGateway, type StubGateway } from './testing/stub-gateway';
import { runTurn } from './turn';

const KEY = 'weft_test';

function bufferRenderer(): { renderer: TurnRenderer; output: () => string } {
  let out = '';
  return { renderer: new TurnRenderer({ write: (text: string) => (out += text) }, createColors(false)), output: () => out };
}

/** What the fixture turn looks like rendered straight from its events, with no network between. */
function expectedRendering(): string {
  const { renderer, output } = bufferRenderer();
  for (const event of completedTurn) renderer.render({ ...event, turnId: 'turn_1', id: '', at: '' } as StoredSessionEvent);
  return output();
}

describe('following a session over SSE', () => {
  let gateway: StubGateway | undefined;
  afterEach(async () => {
    await gateway?.close();
    gateway = undefined;
  });

  it('renders a whole turn from a live stream', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [completedTurn] });
    const { renderer, output } = bufferRenderer();
    const outcome = await runTurn({ client: new ApiClient(gateway.url, KEY), renderer }, 'ses_1', 'hello');

    expect(outcome).toEqual({ status: 'completed', turnId: 'turn_1', workspaceId: 'ws_1', touchedFiles: false });
    expect(output()).toBe(expectedRendering());
    expect(output()).toContain('Let me look.\n● read_file(path="a.txt")\n  ⎿ hello\n    world\n');
  });

  it('resumes with Last-Event-ID and after when the stream drops, rendering every event once', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [completedTurn], dropAfter: 3 });
    const { renderer, output } = bufferRenderer();
    const reconnects: number[] = [];
    const outcome = await runTurn(
      { client: new ApiClient(gateway.url, KEY), renderer, onReconnect: (attempt) => reconnects.push(attempt) },
      'ses_1',
      'hello',
    );

    expect(outcome.status).toBe('completed');
    expect(reconnects).toEqual([1]);
    // message.created, turn.started and the first delta arrived before the drop.
    expect(gateway.streams).toEqual([
      { after: null, lastEventId: undefined },
      { after: '1700000000000-3', lastEventId: '1700000000000-3' },
    ]);
    expect(output()).toBe(expectedRendering());
  });

  it('skips events a server replays after a reconnect', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [completedTurn], dropAfter: 5, ignoreResume: true });
    const { renderer, output } = bufferRenderer();
    await runTurn({ client: new ApiClient(gateway.url, KEY), renderer }, 'ses_1', 'hello');

    expect(gateway.streams).toHaveLength(2);
    expect(output()).toBe(expectedRendering());
  });

  it('reconnects when the stream goes silent past the idle timeout', async () => {
    let connections = 0;
    const server = createServer((req, res) => {
      connections += 1;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (connections === 1) return; // says nothing, keeps the socket open
      res.write(`id: 5-0\ndata: ${JSON.stringify({ type: 'turn.started', turnId: 't', model: 'm', id: '5-0', at: '' })}\n\n`);
    }).listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const client = new ApiClient(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, KEY);
      const events = followEvents(client, 'ses_1', { after: '4-0', idleTimeoutMs: 100, retryDelayMs: 10 });
      const first = await events.next();
      await events.return();

      expect(first.value).toMatchObject({ id: '5-0', event: { type: 'turn.started' } });
      expect(connections).toBe(2);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('stops with the gateway error when the session is not found', async () => {
    gateway = await startStubGateway({ key: KEY, turns: [] });
    const events = followEvents(new ApiClient(gateway.url, KEY), 'ses_missing', {});
    await expect(events.next()).rejects.toMatchObject({ status: 404, code: 'COMMON.NOT_FOUND' });
  });
});

describe('isAfter', () => {
  it('orders Redis stream ids numerically', () => {
    expect(isAfter('1700000000000-10', '1700000000000-9')).toBe(true);
    expect(isAfter('1700000000001-0', '1700000000000-99')).toBe(true);
    expect(isAfter('1700000000000-9', '1700000000000-9')).toBe(false);
    expect(isAfter('1699999999999-9', '1700000000000-0')).toBe(false);
  });
});
