import { randomBytes } from 'node:crypto';
import { z } from 'zod';

export type IdPrefix = 'usr' | 'key' | 'ws' | 'ses' | 'turn' | 'err' | 'perm' | 'note' | 'run';

/** Random, URL- and path-safe ids (`ses_3fJ…`); 16 characters of base64url after the prefix. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBytes(12).toString('base64url')}`;
}

const idOf = (prefix: IdPrefix, what: string) =>
  z.string().regex(new RegExp(`^${prefix}_[a-zA-Z0-9_-]{8,64}$`), `not a ${what} id`);

export const userIdSchema = idOf('usr', 'user');
export const sessionIdSchema = idOf('ses', 'session');
export const noteIdSchema = idOf('note', 'note');

/** A Redis stream id, as used by `Last-Event-ID` and `?after=`. */
export const streamIdSchema = z.string().regex(/^\d+(-\d+)?$/, 'not an event id (expected <ms>-<seq>)');
