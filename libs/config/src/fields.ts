import { z } from 'zod';

export const positiveInt = () => z.coerce.number().int().positive();

/** `true`/`1`/`yes` or `false`/`0`/`no`; `z.coerce.boolean` would read "false" as true. */
export const booleanFlag = () =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
    .transform((value) => value === 'true' || value === '1' || value === 'yes');

/** A comma-separated list of host names (`github.com,git.internal`), lower-cased; empty by default. */
export const hostList = () =>
  z
    .string()
    .default('')
    .transform((list) => list.split(',').map((host) => host.trim().toLowerCase()).filter((host) => host !== ''));
