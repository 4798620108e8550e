import type { ExecRequest } from '@weft/contracts';

/**
 * Commands that install, build or run test suites: they often outlast a request/reply and their
 * output is worth seeing as it comes. Matched against each simple command of the line (split at
 * `;`, `&&`, `||`, `|`, newlines), after `sudo`/`env`/`time` and variable assignments.
 */
const LONG_COMMANDS: readonly RegExp[] = [
  /^(npm|pnpm|yarn|bun) (install|i|ci|add|test|t)\b/,
  /^(npm|pnpm|yarn|bun) run (test|build)/,
  /^(yarn|pnpm)$/,
  /^npx (vitest|jest|mocha|playwright|tsc)\b/,
  /^(pip|pip3|uv pip|poetry|pipenv) (install|sync)\b/,
  /^(python3?|uv run) -m (pip install|pytest|unittest)\b/,
  /^(pytest|tox|nox)\b/,
  /^go (test|build|mod download)\b/,
  /^cargo (test|build|install|check)\b/,
  /^(make|cmake|ninja|mvn|gradle|\.\/gradlew|\.\/mvnw)\b/,
  /^(bundle install|gem install|composer install|dotnet (test|build|restore))\b/,
];

const PREFIX_WORDS = /^((sudo|env|time|nice|timeout \S+)\s+|[A-Za-z_][A-Za-z0-9_]*=\S*\s+)+/;

export interface LongRunPolicy {
  /** A run asking for more time than this is long whatever it runs. */
  thresholdMs: number;
}

/** Whether a run goes through the long-run queue (streamed, cancellable) rather than request/reply. */
export function isLongRun(request: ExecRequest, policy: LongRunPolicy): boolean {
  if (request.timeoutMs !== undefined && request.timeoutMs > policy.thresholdMs) return true;
  if (request.mode !== 'command') return false;
  return simpleCommands(request.command).some((command) => LONG_COMMANDS.some((pattern) => pattern.test(command)));
}

function simpleCommands(line: string): string[] {
  return line
    .split(/;|&&|\|\||\||\n|\(|\)/)
    .map((part) => part.trim().replace(/\s+/g, ' ').replace(PREFIX_WORDS, ''))
    .filter((part) => part !== '');
}
