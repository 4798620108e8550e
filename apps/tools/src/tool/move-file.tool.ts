import { readdir, readlink } from 'node:fs/promises';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { AppError, ErrorCode } from '@weft/contracts';
import { isInside } from '../workspace/path-containment';
import { assertWritable } from '../workspace/protected-paths';
import { type ResolvedLeaf, resolveLeaf } from '../workspace/resolve-leaf';
import { makeFolder, renameInside } from '../workspace/safe-fs';
import { defineTool } from './tool';

/** rename(2) on names through pinned parents: a link is moved as a link, never through. */
export const moveFileTool = defineTool('move_file', async ({ from, to, overwrite }, { root }) => {
  const source = await resolveLeaf(root, from);
  const destination = await resolveLeaf(root, to);
  assertWritable(root, source.real, from);
  assertWritable(root, destination.real, to);
  if (source.kind === 'missing') throw new AppError(ErrorCode.FileNotFound, `No file or folder at '${from}'`);
  if (source.real === destination.real) return `'${from}' and '${to}' are the same place; nothing moved`;
  if (source.kind === 'directory' && isInside(source.real, destination.real)) {
    throw new AppError(ErrorCode.ValidationFailed, `Cannot move the folder '${from}' into itself ('${to}')`);
  }
  if (destination.kind === 'directory') {
    throw new AppError(ErrorCode.Conflict, `'${to}' is an existing folder; give the full new path, such as '${to}/name'`);
  }
  if (destination.kind !== 'missing' && !overwrite) {
    throw new AppError(ErrorCode.Conflict, `'${to}' already exists; pass overwrite: true to replace it`);
  }
  await assertLinksStayInside(root, source, destination.real, from);
  await makeFolder(root, dirname(destination.real));
  await renameInside(root, source.real, destination.real);
  return `Moved '${from}' to '${to}'`;
});

/**
 * A relative link means something else once moved: `a/l -> ../x` moved to `l` would point at
 * `../x`, outside the workspace. Every link the move carries (the entry itself, or those in the
 * folder) must still point inside from where it lands; otherwise the move is refused, so such a
 * link never comes to exist.
 */
async function assertLinksStayInside(root: string, source: ResolvedLeaf, destination: string, from: string): Promise<void> {
  const links: string[] = [];
  if (source.kind === 'symlink') links.push('');
  if (source.kind === 'directory') {
    for (const entry of await readdir(source.real, { recursive: true, withFileTypes: true })) {
      if (entry.isSymbolicLink()) links.push(relative(source.real, join(entry.parentPath, entry.name)));
    }
  }
  for (const link of links) {
    const target = await readlink(join(source.real, link));
    const landsAt = join(destination, link);
    const pointsTo = isAbsolute(target) ? target : resolve(dirname(landsAt), target);
    if (!isInside(root, pointsTo)) {
      const name = link === '' ? `'${from}'` : `the link '${join(from, link)}'`;
      throw new AppError(ErrorCode.PathOutsideWorkspace, `Moving ${name} would make it point outside the workspace ('${target}'); nothing was moved`);
    }
  }
}
