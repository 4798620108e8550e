import { AppError, ErrorCode, listDirectoryArgsSchema } from '@weft/contracts';
import { resolveInside } from '../workspace/path-containment';
import { type DirectoryEntry, listEntries } from '../workspace/safe-fs';
import { defineTool } from './tool';

export const listDirectoryTool = defineTool('list_directory', {
  description: 'List one level of a folder of the workspace: names, kinds and sizes.',
  parameters: listDirectoryArgsSchema,
  async execute({ path }, { root }) {
    const target = await resolveInside(root, path);
    if (!target.exists) throw new AppError(ErrorCode.FileNotFound, `No folder at '${path}'`);
    const entries = await listEntries(root, target.real);
    if (entries.length === 0) return `'${path}' is empty`;
    return entries.map(formatEntry).join('\n');
  },
});

function formatEntry(entry: DirectoryEntry): string {
  switch (entry.type) {
    case 'directory':
      return `${entry.name}/`;
    case 'file':
      return `${entry.name} (${entry.size} bytes)`;
    case 'symlink':
      return `${entry.name}@ (symbolic link)`;
    case 'other':
      return `${entry.name} (special file)`;
  }
}
