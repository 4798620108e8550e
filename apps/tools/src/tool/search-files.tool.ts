import { AppError, ErrorCode } from '@weft/contracts';
import { relativeName, resolveInside } from '../workspace/path-containment';
import { SearchRejected, type SearchResult } from '../search/ripgrep.adapter';
import { defineTool } from './tool';

export const searchFilesTool = defineTool('search_files', async (args, { root, search }) => {
  const target = await resolveInside(root, args.path);
  if (!target.exists) throw new AppError(ErrorCode.FileNotFound, `No file or folder at '${args.path}'`);
  const path = relativeName(root, target.real);
  let result: SearchResult;
  try {
    result = await search.search({
      cwd: root,
      pattern: args.pattern,
      path: path === '.' ? undefined : path,
      glob: args.glob,
      ignoreCase: args.ignoreCase,
      maxResults: args.maxResults,
    });
  } catch (error) {
    if (!(error instanceof SearchRejected)) throw error;
    throw new AppError(ErrorCode.ValidationFailed, `The search was refused: ${error.message}`);
  }
  if (result.matches.length === 0) return result.timedOut ? 'No matches before the search timed out' : 'No matches';
  const lines = result.matches.map((m) => `${m.path}:${m.line}: ${m.text}`);
  if (result.timedOut) lines.push('[search timed out; results are incomplete]');
  else if (result.truncated) lines.push(`[stopped at ${args.maxResults} matches; narrow the pattern, path or glob]`);
  return lines.join('\n');
});
