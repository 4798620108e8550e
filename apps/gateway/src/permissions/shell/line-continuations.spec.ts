import { describe, expect, it } from 'vitest';
import { joinContinuationLines } from './line-continuations';

// Each expectation was checked against bash 5.2: the joined text parses to the same commands.
const joined: Array<[string, string, string]> = [
  ['joins a word split over two lines', 'cu\\\nrl x', 'curl x'],
  ['joins before tokenising, so a `#` inside a word is no comment', 'npm run test\\\n#; curl x', 'npm run test#; curl x'],
  ['joins an operator split over two lines', 'a &\\\n& b', 'a && b'],
  ['joins `$(` split over two lines', 'echo $\\\n(curl x)', 'echo $(curl x)'],
  ['joins inside double quotes', 'echo "cu\\\nrl" x', 'echo "curl" x'],
  ['joins inside backticks, quotes there included', "echo `echo 'cu\\\nrl'`", "echo `echo 'curl'`"],
  ['joins inside ${…} in double quotes, where single quotes are plain', `echo "\${x:-'a\\\nb'}"`, `echo "\${x:-'ab'}"`],
  ['keeps the newline of an escaped backslash', 'echo a\\\\\nb', 'echo a\\\\\nb'],
  ['keeps the pair inside single quotes', "echo 'a\\\nb' c\\\nd", "echo 'a\\\nb' cd"],
  ["keeps the pair inside $'…'", "echo $'a\\\nb' c\\\nd", "echo $'a\\\nb' cd"],
  ['keeps the pair inside ${…} single quotes', "echo ${x:-'a\\\nb'}", "echo ${x:-'a\\\nb'}"],
  ['keeps the pair at the end of a comment, which ends at the newline', '# note \\\ncurl x', '# note \\\ncurl x'],
  ['reads `#` after `$(…)` as part of the word', 'echo $(true)#a\\\nb', 'echo $(true)#ab'],
  ['ends an unquoted here-document at a delimiter split over two lines', 'cat <<EOF\nhi\nEO\\\nF\ncurl x', 'cat <<EOF\nhi\nEOF\ncurl x'],
  ['joins the lines of an unquoted here-document', 'cat <<EOF\na\\\nb\nEOF\ncu\\\nrl', 'cat <<EOF\nab\nEOF\ncurl'],
  ['strips tabs before the delimiter of <<-', 'cat <<-EOF\n\tx\n\tEO\\\nF\ncu\\\nrl', 'cat <<-EOF\n\tx\n\tEOF\ncurl'],
  ['joins a delimiter word split over two lines', 'cat <<E\\\nOF\nx\nEOF\necho a\\\nb', 'cat <<EOF\nx\nEOF\necho ab'],
  ['joins a here-document operator split over two lines', 'cat <\\\n<EOF\nx\\\ny\nEOF', 'cat <<EOF\nxy\nEOF'],
  ['keeps a quoted here-document verbatim, split delimiter included', "cat <<'EOF'\nEO\\\nF\nEOF\ncu\\\nrl", "cat <<'EOF'\nEO\\\nF\nEOF\ncurl"],
  ['treats a backslash in the delimiter as quoting', 'cat <<\\EOF\na\\\nb\nEOF', 'cat <<\\EOF\na\\\nb\nEOF'],
  ['reads here-documents in order', "cat <<A; cat <<'B'\na\\\nb\nA\nc\\\nd\nB\ne\\\nf", "cat <<A; cat <<'B'\nab\nA\nc\\\nd\nB\nef"],
  ['ends a here-document inside $(…) at the delimiter followed by `)`', "echo $(cat <<'E'\nx\nE)\ncu\\\nrl x", "echo $(cat <<'E'\nx\nE)\ncurl x"],
  ['does not read a here-string as a here-document', "cat <<<x\necho 'a\\\nb'", "cat <<<x\necho 'a\\\nb'"],
  ['does not read a shift in $((…)) as a here-document', "echo $((1 << 2))\necho 'a\\\nb'", "echo $((1 << 2))\necho 'a\\\nb'"],
];

describe('joinContinuationLines', () => {
  it.each(joined)('%s', (_name, source, expected) => {
    expect(joinContinuationLines(source)).toBe(expected);
  });

  it('returns a line without backslash-newline unchanged', () => {
    expect(joinContinuationLines("npm run test -- 'a\\b' # c")).toBe("npm run test -- 'a\\b' # c");
  });
});
