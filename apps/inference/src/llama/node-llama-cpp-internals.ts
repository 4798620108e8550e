import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/**
 * A module of node-llama-cpp's `dist` that the package does not export, by its path there: the
 * same module instance the library itself uses, so patching a class in it patches the library.
 */
export function importNodeLlamaCppInternal<T>(pathInDist: string): Promise<T> {
  const dist = dirname(require.resolve('node-llama-cpp'));
  return import(pathToFileURL(join(dist, pathInDist)).href) as Promise<T>;
}
