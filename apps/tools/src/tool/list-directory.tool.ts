import { AppError, ErrorCode } from '@weft/contracts';
import { relativeName, resolveInside } from '../workspace/path-containment';
import { type WalkedEntry, walkTree } from '../workspace/tree-walker';
import { defineTool } from './tool';

/** Entries one recursive listing returns at most. */
export const LIST_MAX_ENTRIES = 2000;

export const listDirectoryTool = defineTool('list_directory', async ({ path, recursive, includeIgnored }, { root }) => {
  const target = await resolveInside(root, path);
  if (!target.exists) throw new AppError(ErrorCode.FileNotFound, `No folder at '${path}'`);
  const walk = await walkTree(root, target.real, { recursive, includeIgnored, maxEntries: LIST_MAX_ENTRIES });
  const base = relativeName(root, target.real);
  const lines = walk.entries.map((entry) => formatEntry(entry, base));
  if (walk.truncated) lines.push(`[stopped after ${LIST_MAX_ENTRIES} entries; list a subfolder to see more]`);
  if (walk.hidden > 0) {
    lines.push(`[${walk.hidden} hidden by .gitignore or as .git/node_modules; includeIgnored: true shows them]`);
  }
  if (walk.entries.length === 0 && !walk.truncated) lines.unshift(`'${path}' is empty`);
  return lines.join('\n');
});

/** Names relative to the listed folder, so a recursive listing reads like `find`. */
function formatEntry(entry: WalkedEntry, base: string): string {
  const name = base === '.' ? entry.path : entry.path.slice(base.length + 1);
  switch (entry.type) {
    case 'directory':
      return `${name}/`;
    case 'file':
      return `${name} (${entry.size} bytes)`;
    case 'symlink':
      return `${name}@ (symbolic link)`;
    case 'other':
      return `${name} (special file)`;
  }
}
