import { toJsxRuntime } from 'hast-util-to-jsx-runtime';
import { common, createLowlight } from 'lowlight';
import { useMemo } from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';

const lowlight = createLowlight(common);
/** Past this, highlighting costs more than it helps: shown plain. */
const MAX_HIGHLIGHT_CHARS = 200_000;
const BY_NAME: Record<string, string> = { Makefile: 'makefile', Dockerfile: 'dockerfile' };

function languageOf(path: string): string | null {
  const name = path.split('/').pop() ?? path;
  if (BY_NAME[name]) return BY_NAME[name];
  const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
  return ext && lowlight.registered(ext) ? ext : null;
}

/**
 * A file's text with syntax highlighting chosen by its name (highlight.js through lowlight), line
 * numbers beside it, and the lines in `changed` marked there.
 */
export function CodeView({ path, text, changed = NO_LINES }: { path: string; text: string; changed?: ReadonlySet<number> }) {
  const content = useMemo(() => {
    const language = languageOf(path);
    if (!language || text.length > MAX_HIGHLIGHT_CHARS || !lowlight.registered(language)) return text;
    return toJsxRuntime(lowlight.highlight(language, text), { Fragment, jsx, jsxs });
  }, [path, text]);
  const lineCount = text.endsWith('\n') ? text.split('\n').length - 1 : text.split('\n').length;
  return (
    <div className="code">
      <ol className="gutter" aria-hidden="true">
        {Array.from({ length: lineCount }, (_, index) => (
          <li key={index} className={changed.has(index + 1) ? 'changed' : undefined}>
            {index + 1}
          </li>
        ))}
      </ol>
      <pre tabIndex={0} aria-label={`Contents of ${path}`} data-changed-lines={[...changed].join(',')}>
        <code className="hljs">{content}</code>
      </pre>
    </div>
  );
}

const NO_LINES: ReadonlySet<number> = new Set();
