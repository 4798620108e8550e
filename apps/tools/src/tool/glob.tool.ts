import { AppError, ErrorCode } from '@weft/contracts';
import picomatch from 'picomatch';
import { relativeName, resolveInside } from '../workspace/path-containment';
import { walkTree } from '../workspace/tree-walker';
import { defineTool } from './tool';

/** Paths one glob returns at most. */
export const GLOB_MAX_RESULTS = 1000;
/** Entries walked at most to answer one glob. */
const GLOB_MAX_WALK = 100_000;

export const globTool = defineTool('glob', async ({ pattern, path, includeIgnored }, { root }) => {
  const target = await resolveInside(root, path);
  if (!target.exists) throw new AppError(ErrorCode.FileNotFound, `No folder at '${path}'`);
  const matches = compile(pattern);
  const base = relativeName(root, target.real);
  const walk = await walkTree(root, target.real, { recursive: true, includeIgnored, maxEntries: GLOB_MAX_WALK });
  const found: string[] = [];
  for (const entry of walk.entries) {
    if (entry.type === 'directory') continue;
    const relative = base === '.' ? entry.path : entry.path.slice(base.length + 1);
    if (matches(relative)) found.push(entry.path);
  }
  const lines = found.slice(0, GLOB_MAX_RESULTS);
  if (found.length > GLOB_MAX_RESULTS) lines.push(`[${found.length - GLOB_MAX_RESULTS} more; narrow the pattern or path]`);
  if (walk.truncated) lines.push(`[stopped after walking ${GLOB_MAX_WALK} entries; results may be incomplete]`);
  if (found.length === 0) lines.unshift(`No files match '${pattern}' under '${path}'`);
  return lines.join('\n');
});

function compile(pattern: string): (path: string) => boolean {
  try {
    return picomatch(pattern, { dot: true });
  } catch (error) {
    throw new AppError(ErrorCode.ValidationFailed, `'${pattern}' is not a valid glob: ${(error as Error).message}`);
  }
}
