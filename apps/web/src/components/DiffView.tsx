import { Diff, type FileData, Hunk, parseDiff } from 'react-diff-view';

/** A unified diff ("--- a/x", "+++ b/x", hunks) as a rendered diff, one block per file. */
export function DiffView({ diff, label }: { diff: string; label: string }) {
  let files: FileData[];
  try {
    files = parseDiff(diff, { nearbySequences: 'zip' });
  } catch {
    files = []; // not a diff this parser reads: shown as text below
  }
  if (files.length === 0) return <pre className="output">{diff}</pre>;
  return (
    <figure className="diff" aria-label={label}>
      {files.map((file) => (
        <div key={`${file.oldPath}->${file.newPath}`} className="diff-file">
          <figcaption className="diff-path">{file.type === 'add' ? `${file.newPath} (new file)` : file.newPath || file.oldPath}</figcaption>
          <Diff viewType="unified" diffType={file.type} hunks={file.hunks} gutterType="default">
            {(hunks) => hunks.map((hunk) => <Hunk key={hunk.content} hunk={hunk} />)}
          </Diff>
        </div>
      ))}
    </figure>
  );
}
