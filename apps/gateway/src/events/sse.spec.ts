import type { StoredSessionEvent } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { formatSseComment, formatSseEvent, formatSseMessage } from './sse';

describe('SSE framing', () => {
  it('frames an event with its stream id, type and JSON data', () => {
    const event: StoredSessionEvent = { type: 'message.delta', turnId: 'turn_1', text: 'a\nb', id: '1-0', at: 'now' };
    const frame = formatSseEvent(event);
    expect(frame).toBe(`id: 1-0\nevent: message.delta\ndata: ${JSON.stringify(event)}\n\n`);
    expect(frame.split('\n\n')).toHaveLength(2);
  });

  it('splits multi-line data into several data lines', () => {
    expect(formatSseMessage({ data: 'one\ntwo\r\nthree' })).toBe('data: one\ndata: two\ndata: three\n\n');
  });

  it('keeps ids and event names on one line', () => {
    expect(formatSseMessage({ id: 'a\nb', event: 'x\ry', data: '' })).toBe('id: a b\nevent: x y\ndata: \n\n');
  });

  it('frames keep-alive comments', () => {
    expect(formatSseComment('keep-alive')).toBe(': keep-alive\n\n');
  });
});
