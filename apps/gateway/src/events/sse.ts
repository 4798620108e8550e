import type { StoredSessionEvent } from '@weft/contracts';

/** Headers of an event stream; `X-Accel-Buffering: no` stops nginx from holding events back. */
export const SSE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

export const KEEP_ALIVE_MS = 15_000;

/** One SSE message; a multi-line payload becomes several `data:` lines, as the spec requires. */
export function formatSseMessage(message: { id?: string; event?: string; data: string }): string {
  const lines: string[] = [];
  if (message.id !== undefined) lines.push(`id: ${singleLine(message.id)}`);
  if (message.event !== undefined) lines.push(`event: ${singleLine(message.event)}`);
  for (const line of message.data.split(/\r\n|\r|\n/)) lines.push(`data: ${line}`);
  return `${lines.join('\n')}\n\n`;
}

export function formatSseEvent(event: StoredSessionEvent): string {
  return formatSseMessage({ id: event.id, event: event.type, data: JSON.stringify(event) });
}

/** A comment line: ignored by clients, keeps proxies from closing an idle connection. */
export function formatSseComment(text: string): string {
  return `: ${singleLine(text)}\n\n`;
}

function singleLine(value: string): string {
  return value.replace(/[\r\n]+/g, ' ');
}
