import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

export const RARE_TOKEN = 'WEFT_NEEDLE_7f3a';

const WORDS = ['const', 'value', 'return', 'export', 'function', 'import', 'handler', 'request', 'result', 'config', 'TODO', 'await'];

/**
 * A project-shaped tree: `files` source files of about 2 KiB in folders of 100, one file in
 * 1,000 holding RARE_TOKEN, plus a `node_modules` and a `.gitignore`d `dist` that searches skip.
 */
export async function generateTree(root: string, files: number): Promise<void> {
  let seed = 42;
  const next = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff);
  await writeFile(join(root, '.gitignore'), 'dist/\n');
  for (let i = 0; i < files; i++) {
    const dir = join(root, 'src', `module-${Math.floor(i / 100)}`);
    if (i % 100 === 0) await mkdir(dir, { recursive: true });
    const lines: string[] = [];
    for (let line = 0; line < 60; line++) {
      const words = Array.from({ length: 5 }, () => WORDS[next() % WORDS.length]);
      lines.push(`${words.join(' ')} ${next() % 100000};`);
    }
    if (i % 1000 === 7) lines.splice(30, 0, `export const marker = '${RARE_TOKEN}';`);
    await writeFile(join(dir, `file-${i}.${i % 3 === 0 ? 'ts' : 'js'}`), lines.join('\n') + '\n');
  }
  for (const skipped of ['node_modules/dep', 'dist']) {
    await mkdir(join(root, skipped), { recursive: true });
    for (let i = 0; i < 200; i++) await writeFile(join(root, skipped, `f-${i}.js`), `const x = '${RARE_TOKEN}';\n`);
  }
}
