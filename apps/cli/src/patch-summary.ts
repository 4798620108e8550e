/** One path a workspace patch changes. */
export interface ChangedFile {
  readonly path: string;
  readonly change: 'added' | 'modified' | 'deleted';
}

export interface PatchSummary {
  readonly files: readonly ChangedFile[];
  /** The patch's leading `# Weft:` comments (files too large to include, say), without the marker. */
  readonly notes: readonly string[];
}

const NOTE_PREFIX = '# Weft: ';
const MARKS: Readonly<Record<ChangedFile['change'], string>> = { added: 'A', modified: 'M', deleted: 'D' };

/**
 * The files of a patch from `GET /v1/workspaces/:id/patch`: git's `diff --git` sections, one path
 * each (the gateway writes no renames); a path deleted and added again (a file that became a
 * link) is one modification.
 */
export function summarizePatch(patch: string): PatchSummary {
  const notes: string[] = [];
  const changes = new Map<string, ChangedFile['change']>();
  let current: string | undefined;
  for (const line of patch.split('\n')) {
    if (line.startsWith(NOTE_PREFIX) && changes.size === 0) notes.push(line.slice(NOTE_PREFIX.length));
    else if (line.startsWith('diff --git ')) {
      current = pathOfHeader(line.slice('diff --git '.length));
      if (current !== undefined && !changes.has(current)) changes.set(current, 'modified');
    } else if (current !== undefined && line.startsWith('new file mode ')) {
      changes.set(current, changes.get(current) === 'deleted' ? 'modified' : 'added');
    } else if (current !== undefined && line.startsWith('deleted file mode ')) {
      changes.set(current, 'deleted');
    }
  }
  return { files: [...changes].map(([path, change]) => ({ path, change })), notes };
}

/** `A  path` lines, as `git status --short` marks them. */
export function changeLines(files: readonly ChangedFile[]): string[] {
  return files.map((file) => `${MARKS[file.change]}  ${file.path}`);
}

/** `a/<path> b/<path>`, either side C-quoted when the name needs it; both sides name the same path. */
function pathOfHeader(rest: string): string | undefined {
  if (rest.startsWith('"')) {
    const end = closingQuote(rest);
    return end < 0 ? undefined : stripSide(unquote(rest.slice(1, end)));
  }
  // Unquoted, `a/P b/P`: the path is the half that fits.
  const length = (rest.length - 5) / 2;
  if (!Number.isInteger(length) || length <= 0) return undefined;
  const path = rest.slice(2, 2 + length);
  return rest === `a/${path} b/${path}` ? path : undefined;
}

function stripSide(name: string): string {
  return name.replace(/^[ab]\//, '');
}

function closingQuote(text: string): number {
  for (let i = 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === '"') return i;
  }
  return -1;
}

const ESCAPES: Readonly<Record<string, number>> = { a: 7, b: 8, t: 9, n: 10, v: 11, f: 12, r: 13, '"': 0x22, '\\': 0x5c };

/** git's C quoting: `\t`, `\"`, `\\` and octal bytes (`\303\251` is é in UTF-8). */
function unquote(quoted: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < quoted.length; i++) {
    const char = quoted[i] ?? '';
    if (char !== '\\') {
      bytes.push(...Buffer.from(char, 'utf8'));
      continue;
    }
    const octal = /^[0-7]{3}/.exec(quoted.slice(i + 1));
    if (octal) {
      bytes.push(Number.parseInt(octal[0], 8));
      i += 3;
    } else {
      const next = quoted[i + 1] ?? '';
      bytes.push(ESCAPES[next] ?? next.charCodeAt(0));
      i += 1;
    }
  }
  return Buffer.from(bytes).toString('utf8');
}
