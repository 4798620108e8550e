import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { Document, isMap, isSeq, parseDocument, YAMLSeq } from 'yaml';
import { UsageError } from '../errors';

/**
 * Merges Weft's settings into a client's config file as text in, text out: what is not Weft's
 * stays (comments too, where the format's library keeps them), so the diff shows only our keys.
 */
export type JsonObject = Record<string, unknown>;

/** `current` parsed (an empty object for a new file), changed by `edit`, written back with two-space indents. */
export function mergeJson(path: string, current: string | undefined, edit: (config: JsonObject) => void): string {
  const config = current?.trim() ? parseObject(path, () => JSON.parse(current) as unknown) : {};
  edit(config);
  return `${JSON.stringify(config, null, 2)}\n`;
}

/** The object at `key` of `parent`, made when absent (a value of another type is replaced). */
export function objectAt(parent: JsonObject, key: string): JsonObject {
  const value = parent[key];
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as JsonObject;
  const made: JsonObject = {};
  parent[key] = made;
  return made;
}

/** TOML keeps no comments through a parse: the diff shows the user what a rewrite drops before they accept it. */
export function mergeToml(path: string, current: string | undefined, edit: (config: JsonObject) => void): string {
  const config = current?.trim() ? parseObject(path, () => parseToml(current)) : {};
  edit(config);
  return `${stringifyToml(config)}\n`;
}

/** `entry` in the YAML list at `listKey`, in place of the item whose `name` is the same; the rest of the document as it was. */
export function upsertYamlListItem(path: string, current: string | undefined, listKey: string, entry: JsonObject, header: JsonObject): string {
  const parsed = parseDocument(current?.trim() ? current : '');
  if (parsed.errors.length > 0) throw new UsageError(`${path} is not valid YAML (${parsed.errors[0]?.message ?? 'unreadable'}): fix it or move it away, then run again`);
  const doc: Document = isMap(parsed.contents) ? parsed : new Document(header);
  const list = doc.get(listKey);
  const seq = isSeq(list) ? list : new YAMLSeq();
  if (!isSeq(list)) doc.set(listKey, seq);
  const at = seq.items.findIndex((item) => isMap(item) && item.get('name') === entry.name);
  const node = doc.createNode(entry);
  if (at >= 0) seq.items[at] = node;
  else seq.items.push(node);
  return doc.toString();
}

/**
 * `KEY=value` lines (a dotenv file, or `export KEY='value'` for a shell to source): each of
 * `values` replaces its line or is appended; other lines stay.
 */
export function mergeEnvLines(current: string | undefined, values: Readonly<Record<string, string>>, style: 'dotenv' | 'export'): string {
  const lines = current ? current.replace(/\n$/, '').split('\n') : [];
  const left = new Map(Object.entries(values));
  const merged = lines.map((line) => {
    const name = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=/.exec(line)?.[1];
    const value = name === undefined ? undefined : left.get(name);
    if (name === undefined || value === undefined) return line;
    left.delete(name);
    return envLine(name, value, style);
  });
  for (const [name, value] of left) merged.push(envLine(name, value, style));
  return `${merged.join('\n')}\n`;
}

function envLine(name: string, value: string, style: 'dotenv' | 'export'): string {
  const quoted = /^[\w./:@-]*$/.test(value) ? value : `'${value.replaceAll("'", `'\\''`)}'`;
  return style === 'export' ? `export ${name}=${quoted}` : `${name}=${quoted}`;
}

function parseObject(path: string, parse: () => unknown): JsonObject {
  let value: unknown;
  try {
    value = parse();
  } catch (error) {
    throw new UsageError(`${path} cannot be read (${error instanceof Error ? error.message.split('\n')[0] : String(error)}): fix it or move it away, then run again`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError(`${path} does not hold an object: fix it or move it away, then run again`);
  return value as JsonObject;
}
