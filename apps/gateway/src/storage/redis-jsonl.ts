import { type ExportHeader, exportHeaderSchema, type RedisRecord, redisRecordSchema } from './redis-records';

/** The export as JSON lines: the header, then one key a line, sorted, so a diff reads key by key. */
export function toJsonl(header: ExportHeader, records: readonly RedisRecord[]): string {
  return [header, ...records].map((line) => JSON.stringify(line)).join('\n') + '\n';
}

/** Parses and validates an export; a bad line is named by its number. */
export function fromJsonl(text: string): { header: ExportHeader; records: RedisRecord[] } {
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  const parse = (line: string, index: number) => {
    try {
      return JSON.parse(line) as unknown;
    } catch (error) {
      throw new Error(`redis export line ${index + 1} is not JSON`, { cause: error });
    }
  };
  const header = exportHeaderSchema.parse(parse(lines[0] ?? '', 0));
  const records = lines.slice(1).map((line, i) => {
    const parsed = redisRecordSchema.safeParse(parse(line, i + 1));
    if (!parsed.success) throw new Error(`redis export line ${i + 2}: ${parsed.error.issues.map((issue) => issue.message).join('; ')}`);
    return parsed.data;
  });
  return { header, records };
}
