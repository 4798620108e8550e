import { z } from 'zod';

/**
 * A portable copy of one Redis key, read by type (not DUMP: a DUMP payload restores only into the
 * same or a later Redis, and a committed fixture must stay readable and diffable). A value that is
 * not UTF-8 travels as base64. Keys are stored without the deployment's prefix.
 */
export const bytesSchema = z.union([z.string(), z.strictObject({ base64: z.string() })]);
export type Bytes = z.infer<typeof bytesSchema>;

const common = { key: z.string().min(1), ttlMs: z.number().int().positive().optional() };
export const redisRecordSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...common, type: z.literal('string'), value: bytesSchema }),
  z.strictObject({ ...common, type: z.literal('hash'), value: z.array(z.tuple([bytesSchema, bytesSchema])) }),
  z.strictObject({ ...common, type: z.literal('list'), value: z.array(bytesSchema) }),
  z.strictObject({ ...common, type: z.literal('set'), value: z.array(bytesSchema) }),
  z.strictObject({ ...common, type: z.literal('zset'), value: z.array(z.tuple([bytesSchema, z.string()])) }),
  z.strictObject({
    ...common,
    type: z.literal('stream'),
    value: z.strictObject({
      entries: z.array(z.tuple([z.string(), z.array(z.string())])),
      lastId: z.string(),
      groups: z.array(z.strictObject({ name: z.string(), lastDeliveredId: z.string() })),
    }),
  }),
]);
export type RedisRecord = z.infer<typeof redisRecordSchema>;

/** The export's first line. `storageVersion` is what restore migrates from. */
export const exportHeaderSchema = z.strictObject({
  format: z.literal('weft-redis-export'),
  formatVersion: z.literal(1),
  storageVersion: z.number().int().nonnegative(),
  /** The prefix the keys had; restore writes them under its own. */
  prefix: z.string(),
  startedAt: z.string(),
  finishedAt: z.string(),
  keys: z.number().int().nonnegative(),
});
export type ExportHeader = z.infer<typeof exportHeaderSchema>;

export function encodeBytes(buffer: Buffer): Bytes {
  const text = buffer.toString('utf8');
  return Buffer.from(text, 'utf8').equals(buffer) ? text : { base64: buffer.toString('base64') };
}

export function decodeBytes(bytes: Bytes): Buffer {
  return typeof bytes === 'string' ? Buffer.from(bytes, 'utf8') : Buffer.from(bytes.base64, 'base64');
}
