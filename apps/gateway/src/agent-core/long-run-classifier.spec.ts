import type { ExecRequest } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { isLongRun } from './long-run-classifier';

const policy = { thresholdMs: 60_000 };
const command = (text: string, timeoutMs?: number): ExecRequest => ({ mode: 'command', workspaceId: 'ws_abcdefgh', command: text, timeoutMs });

describe('isLongRun', () => {
  it.each([
    'npm install',
    'npm ci',
    'npm i left-pad',
    'npm test',
    'npm run test:unit',
    'npm run build',
    'yarn',
    'pnpm install --frozen-lockfile',
    'pip install -r requirements.txt',
    'python3 -m pip install .',
    'python -m pytest -q',
    'pytest tests/',
    'go test ./...',
    'cargo build --release',
    'cargo test',
    'make',
    'make -j4 all',
    'mvn -q package',
    'gradle test',
    './gradlew build',
    'cd app && npm ci && npm test',
    'CI=1 npm test',
    'sudo make install',
    'ls; pytest',
  ])('sends %s through the long-run queue', (text) => {
    expect(isLongRun(command(text), policy)).toBe(true);
  });

  it.each(['ls -la', 'cat package.json', 'git status', 'echo npm install', 'grep -r pytest .', 'npm --version', 'python3 main.py', 'node -e 1'])(
    'keeps %s on the short path',
    (text) => {
      expect(isLongRun(command(text), policy)).toBe(false);
    },
  );

  it('sends any run asking for more time than the threshold through the queue', () => {
    expect(isLongRun(command('ls', 60_001), policy)).toBe(true);
    expect(isLongRun(command('ls', 60_000), policy)).toBe(false);
    expect(isLongRun({ mode: 'code', language: 'python', code: 'print(1)', timeoutMs: 120_000 }, policy)).toBe(true);
  });

  it('keeps snippets on the short path whatever they contain', () => {
    expect(isLongRun({ mode: 'code', language: 'bash', code: 'npm install' }, policy)).toBe(false);
  });
});
