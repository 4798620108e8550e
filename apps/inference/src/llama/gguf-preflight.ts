import type { NodeLlamaCpp } from './llama-runtime';

/**
 * llama.cpp aborts the whole process (no exception) on some malformed GGUFs, e.g. without
 * feed_forward_length or head_count. Read the header first so such a file is a typed error.
 */
export async function assertLoadableGguf(lib: NodeLlamaCpp, path: string): Promise<void> {
  const info = await lib.readGgufFileInfo(path, { readTensorInfo: false });
  const arch = info.metadata.general?.architecture;
  if (!arch) throw new Error('GGUF has no general.architecture');
  const hyper = (info.architectureMetadata ?? {}) as {
    feed_forward_length?: unknown;
    attention?: { head_count?: unknown };
  };
  const missing = [
    hyper.feed_forward_length === undefined && `${arch}.feed_forward_length`,
    hyper.attention?.head_count === undefined && `${arch}.attention.head_count`,
  ].filter((key): key is string => typeof key === 'string');
  if (missing.length > 0) throw new Error(`GGUF lacks required keys: ${missing.join(', ')}`);
}
