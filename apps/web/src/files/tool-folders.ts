/**
 * Folders that tools keep beside a project rather than the project's own files: Weft's `.weft/`
 * (chains, settings), caches of test runners, linters and package managers, virtual environments.
 * The tree lists them last, folded under one entry, so the project reads first.
 */
const TOOL_FOLDERS = new Set([
  '.weft',
  '.git',
  '.cache',
  '.pytest_cache',
  '__pycache__',
  '.mypy_cache',
  '.ruff_cache',
  '.hypothesis',
  '.tox',
  '.nox',
  '.venv',
  'venv',
  '.ipynb_checkpoints',
  'node_modules',
  '.npm',
  '.yarn',
  '.pnpm-store',
  '.next',
  '.nuxt',
  '.turbo',
  '.parcel-cache',
  '.nx',
  '.gradle',
  '.idea',
  '.vscode',
]);

export function isToolFolder(entry: { name: string; type: string }): boolean {
  return (entry.type === 'directory' && (TOOL_FOLDERS.has(entry.name) || entry.name.endsWith('.egg-info'))) || entry.name === '.DS_Store';
}

/** A folder's entries split into the project's own and the tools' (in their order). */
export function splitToolFolders<T extends { name: string; type: string }>(entries: readonly T[]): { project: T[]; tools: T[] } {
  return { project: entries.filter((e) => !isToolFolder(e)), tools: entries.filter(isToolFolder) };
}
