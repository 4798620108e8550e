import type { StoredSessionEvent } from '@weft/contracts';
import { createParser } from 'eventsource-parser';

/** Follows a session's event stream over real HTTP until `until` says stop. */
export async function readEvents(
  url: string,
  headers: Record<string, string>,
  until: (event: StoredSessionEvent) => boolean,
  onOpen?: (response: Response) => void,
): Promise<StoredSessionEvent[]> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  onOpen?.(response);
  if (!response.ok || !response.body) throw new Error(`SSE request failed: ${response.status} ${await response.text()}`);
  const events: StoredSessionEvent[] = [];
  let done = false;
  const parser = createParser({
    onEvent: (message) => {
      if (done) return;
      const event = JSON.parse(message.data) as StoredSessionEvent;
      if (message.id !== event.id || message.event !== event.type) throw new Error('SSE framing mismatch');
      events.push(event);
      done = until(event);
    },
  });
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  try {
    while (!done) {
      const { value, done: ended } = await reader.read();
      if (ended) break;
      parser.feed(value);
    }
  } finally {
    controller.abort();
  }
  return events;
}
