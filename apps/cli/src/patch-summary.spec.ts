import { describe, expect, it } from 'vitest';
import { changeLines, summarizePatch } from './patch-summary';

const modified = 'diff --git a/src/app.py b/src/app.py\n--- a/src/app.py\n+++ b/src/app.py\n@@ -1 +1 @@\n-print("hello")\n+print("hi")\n';
const added = 'diff --git a/notes/new file.md b/notes/new file.md\nnew file mode 100644\n--- /dev/null\n+++ b/notes/new file.md\n@@ -0,0 +1 @@\n+hi\n';
const deleted = 'diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n';

describe('summarizePatch', () => {
  it('lists each path of the patch once, as added, modified or deleted', () => {
    const { files, notes } = summarizePatch(modified + added + deleted);
    expect(files).toEqual([
      { path: 'src/app.py', change: 'modified' },
      { path: 'notes/new file.md', change: 'added' },
      { path: 'old.txt', change: 'deleted' },
    ]);
    expect(notes).toEqual([]);
    expect(changeLines(files)).toEqual(['M  src/app.py', 'A  notes/new file.md', 'D  old.txt']);
  });

  it('reads C-quoted names, mode changes, binary files, and a file that became a link', () => {
    const quoted = 'diff --git "a/caf\\303\\251 \\"x\\".txt" "b/caf\\303\\251 \\"x\\".txt"\nnew file mode 100644\n--- /dev/null\n+++ "b/caf\\303\\251 \\"x\\".txt"\n@@ -0,0 +1 @@\n+x\n';
    const mode = 'diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n';
    const binary = 'diff --git a/logo.png b/logo.png\nnew file mode 100644\nindex 0000000..e69de29\nGIT binary patch\nliteral 3\nKcmZ>Y%K!iX\n\nliteral 0\nHcmV?d00001\n\n';
    const link = 'diff --git a/current b/current\ndeleted file mode 100644\n--- a/current\n+++ /dev/null\n@@ -1 +0,0 @@\n-v1\ndiff --git a/current b/current\nnew file mode 120000\n--- /dev/null\n+++ b/current\n@@ -0,0 +1 @@\n+v2\n\\ No newline at end of file\n';
    expect(summarizePatch(quoted + mode + binary + link).files).toEqual([
      { path: 'café "x".txt', change: 'added' },
      { path: 'run.sh', change: 'modified' },
      { path: 'logo.png', change: 'added' },
      { path: 'current', change: 'modified' },
    ]);
  });

  it("keeps the gateway's leading remarks apart, and reads an empty patch as no change", () => {
    const patch = `# Weft: too large to include, copy these from the archive: data.bin\n${modified}`;
    expect(summarizePatch(patch)).toEqual({ files: [{ path: 'src/app.py', change: 'modified' }], notes: ['too large to include, copy these from the archive: data.bin'] });
    expect(summarizePatch('')).toEqual({ files: [], notes: [] });
  });
});
