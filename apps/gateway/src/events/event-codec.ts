import { type SessionEvent, type StoredSessionEvent, sessionEventSchema } from '@weft/contracts';

/** A stream entry holds one field, `event`: the JSON of the event and its time. */
export const EVENT_FIELD = 'event';

export function encodeEvent(event: SessionEvent, at: Date = new Date()): string {
  return JSON.stringify({ ...sessionEventSchema.parse(event), at: at.toISOString() });
}

/** Entries as ioredis returns them: `[id, [field, value, …]]`. */
export function decodeEntry([id, fields]: [string, string[]]): StoredSessionEvent | undefined {
  const index = fields.indexOf(EVENT_FIELD);
  const raw = index >= 0 ? fields[index + 1] : undefined;
  if (raw === undefined) return undefined;
  const parsed = JSON.parse(raw) as SessionEvent & { at: string };
  return { ...parsed, id };
}
