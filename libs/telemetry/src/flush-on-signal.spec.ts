import { afterEach, describe, expect, it } from 'vitest';
import { flushOnExitSignals } from './flush-on-signal';

describe('flushing spans when the process is told to stop', () => {
  let stop: (() => void) | undefined;
  afterEach(() => stop?.());

  it('waits while another handler (Nest closing the app) listens, then flushes and raises the signal again', async () => {
    const events: string[] = [];
    const raised = new Promise<NodeJS.Signals>((resolve) => {
      stop = flushOnExitSignals(
        async () => {
          events.push('flush');
        },
        (signal) => {
          events.push(`raise ${signal}`);
          resolve(signal);
        },
      );
    });
    const nest = () => events.push('app closed');
    process.on('SIGTERM', nest);
    process.emit('SIGTERM', 'SIGTERM');
    expect(events).toEqual(['app closed']);

    // Nest removes its handler once the app is closed and raises the signal again (Node passes its name).
    process.removeListener('SIGTERM', nest);
    process.emit('SIGTERM', 'SIGTERM');
    expect(await raised).toBe('SIGTERM');
    expect(events).toEqual(['app closed', 'flush', 'raise SIGTERM']);
    expect(process.listenerCount('SIGTERM')).toBe(0);
  });
});
