import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

export interface SearchQuery {
  /** Real workspace root; ripgrep runs there so the paths it prints are relative to it. */
  cwd: string;
  pattern: string;
  /** Folder or file relative to cwd; undefined searches all of cwd. */
  path?: string;
  glob?: string;
  ignoreCase: boolean;
  maxResults: number;
}

export interface SearchMatch {
  path: string;
  line: number;
  text: string;
}

export interface SearchResult {
  matches: SearchMatch[];
  /** Stopped at maxResults or at the time limit. */
  truncated: boolean;
  timedOut: boolean;
}

/** ripgrep refused the query itself (a bad regex or glob); the message is ripgrep's. */
export class SearchRejected extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'SearchRejected';
  }
}

export const SEARCH_TIMEOUT_MS = 20_000;
/** Long lines (minified code) are cut by ripgrep itself. */
const MAX_COLUMNS = 300;
const MAX_FILE_SIZE = '16M';
const STDERR_MAX_CHARS = 2000;

interface RgMatch {
  type: string;
  data?: { path?: { text?: string }; lines?: { text?: string }; line_number?: number };
}

/** ripgrep behind one function: spawned without a shell, links never followed, output streamed. */
export class RipgrepAdapter {
  constructor(
    private readonly binary = 'rg',
    private readonly timeoutMs = SEARCH_TIMEOUT_MS,
  ) {}

  search(query: SearchQuery): Promise<SearchResult> {
    const child = spawn(this.binary, buildArgs(query), {
      cwd: query.cwd,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result: SearchResult = { matches: [], truncated: false, timedOut: false };
    let stderr = '';
    const timer = setTimeout(() => {
      result.timedOut = result.truncated = true;
      child.kill('SIGKILL');
    }, this.timeoutMs);
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      if (stderr.length < STDERR_MAX_CHARS) stderr += chunk;
    });
    createInterface({ input: child.stdout }).on('line', (line) => {
      if (result.truncated) return;
      const match = parseMatch(line);
      if (!match) return;
      result.matches.push(match);
      if (result.matches.length >= query.maxResults) {
        result.truncated = true;
        child.kill('SIGTERM');
      }
    });
    return new Promise((resolve, reject) => {
      child.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
      child.on('close', (code) => {
        clearTimeout(timer);
        // 0: matches, 1: none, 2: an error; with no match at all that is the query's fault.
        if (code === 2 && result.matches.length === 0) reject(new SearchRejected(stderr.trim().slice(0, STDERR_MAX_CHARS)));
        else resolve(result);
      });
    });
  }
}

function buildArgs(query: SearchQuery): string[] {
  const args = ['--json', '--no-config', '--no-require-git', '--hidden', '--no-follow'];
  args.push('--max-columns', String(MAX_COLUMNS), '--max-columns-preview', '--max-filesize', MAX_FILE_SIZE);
  args.push('--glob', '!.git', '--glob', '!node_modules');
  if (query.glob) args.push('--glob', query.glob);
  if (query.ignoreCase) args.push('--ignore-case');
  args.push('--regexp', query.pattern, '--');
  if (query.path) args.push(query.path);
  return args;
}

function parseMatch(line: string): SearchMatch | null {
  let event: RgMatch;
  try {
    event = JSON.parse(line) as RgMatch;
  } catch {
    return null;
  }
  const data = event.data;
  if (event.type !== 'match' || !data?.path?.text || data.line_number === undefined) return null;
  return { path: data.path.text.replace(/^\.\//, ''), line: data.line_number, text: (data.lines?.text ?? '').replace(/\r?\n$/, '') };
}
