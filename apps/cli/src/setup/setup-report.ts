import { assertUnreachable, type ModelInfo } from '@weft/contracts';

/** Where a model runs, as a person choosing one cares: on the team's hardware, at a provider, or a replayed script. */
export type ModelKind = 'local' | 'remote' | 'scripted';

const KIND_ORDER: readonly ModelKind[] = ['local', 'remote', 'scripted'];

export function modelKind(provider: ModelInfo['provider']): ModelKind {
  switch (provider) {
    case 'llama':
      return 'local';
    case 'openai':
    case 'anthropic':
      return 'remote';
    case 'scripted':
      return 'scripted';
    default:
      return assertUnreachable(provider);
  }
}

/** One line per kind that has models, local first: `local     qwen-coder-7b (context 16384)`. */
export function modelLines(models: readonly ModelInfo[]): string[] {
  const width = Math.max(...KIND_ORDER.map((kind) => kind.length));
  return KIND_ORDER.flatMap((kind) => {
    const ofKind = models.filter((model) => modelKind(model.provider) === kind);
    if (ofKind.length === 0) return [];
    return [`${kind.padEnd(width)}  ${ofKind.map((model) => `${model.id} (${modelNote(model)})`).join(', ')}`];
  });
}

function modelNote(model: ModelInfo): string {
  const kind = modelKind(model.provider);
  const where = kind === 'remote' ? `${model.provider}, ` : '';
  const roles = model.roles?.length ? `, ${model.roles.join('/')}` : '';
  return `${where}context ${model.contextSize}${roles}`;
}

/** The model to show in the next steps: a local one, else a remote one, else the demo script. */
export function suggestedModel(models: readonly ModelInfo[]): string | undefined {
  for (const kind of KIND_ORDER) {
    const ofKind = models.filter((model) => modelKind(model.provider) === kind);
    if (kind === 'scripted' && ofKind.some((model) => model.id === 'scripted/demo')) return 'scripted/demo';
    if (ofKind[0]) return ofKind[0].id;
  }
  return undefined;
}

/** `GET /readyz`'s answer: each dependency `up` or `down`, and the ones that are down. */
export interface Readiness {
  readonly ready: boolean;
  readonly checks: Readonly<Record<string, string>>;
  readonly down: readonly string[];
}

const DEPENDENCY_NAMES: Readonly<Record<string, string>> = { redis: 'Redis', nats: 'NATS' };
const dependencyName = (name: string) => DEPENDENCY_NAMES[name] ?? name;

/** `Redis up · NATS up`, or `NATS is down`. */
export function readinessText(readiness: Readiness): string {
  if (!readiness.ready) {
    const down = readiness.down.length ? readiness.down : Object.keys(readiness.checks).filter((name) => readiness.checks[name] !== 'up');
    if (down.length === 0) return 'it says it is not ready';
    return `${down.map(dependencyName).join(' and ')} ${down.length === 1 ? 'is' : 'are'} down`;
  }
  return Object.entries(readiness.checks)
    .map(([name, state]) => `${dependencyName(name)} ${state}`)
    .join(' · ');
}

export function readinessHint(readiness: Readiness): string {
  const names = readiness.down.map(dependencyName).join(' and ') || 'its dependencies';
  return `the gateway cannot reach ${names}: check that ${readiness.down.length === 1 ? 'it runs' : 'they run'} (\`docker compose ps\`) and the gateway's REDIS_URL / NATS_URL`;
}

export type CheckName = 'gateway' | 'key' | 'config' | 'models' | 'pull' | 'sandbox' | 'packages';
/** `warn`: something went wrong and was worked around (a refused key replaced by a new one). */
export type CheckStatus = 'pass' | 'warn' | 'fail' | 'skip';

export interface CheckResult {
  readonly check: CheckName;
  readonly status: CheckStatus;
  readonly text: string;
  /** What to do about a failure, for the summary. */
  readonly hint?: string;
}

export interface SummaryInput {
  readonly results: readonly CheckResult[];
  /** From the models check, when it passed. */
  readonly model?: string;
}

/** What to do next: the first commands to try when every check passed, else what to fix. */
export function summaryLines({ results, model }: SummaryInput): string[] {
  const failed = results.filter((result) => result.status === 'fail');
  if (failed.length === 0) {
    const withModel = model ? ` --model ${model}` : '';
    const steps: [string, string][] = [
      [`weft run "summarise this project"${withModel}`, 'one turn: uploads the folder, streams the answer'],
      [`weft chat${withModel}`, 'a conversation; /help lists its commands'],
      ['weft apply', "writes the agent's changes into the folder"],
      ['weft --help', 'every command'],
    ];
    const width = Math.max(...steps.map(([command]) => command.length));
    return ['Weft is ready. Next, in a project folder:', ...steps.map(([command, what]) => `  ${command.padEnd(width)}   # ${what}`)];
  }
  const lines = [`${failed.length} check${failed.length === 1 ? '' : 's'} failed:`];
  // npm and pip failing for one reason share one fix: said once.
  lines.push(...new Set(failed.map((result) => `  ${result.check}: ${result.hint ?? result.text}`)));
  const saved = results.some((result) => result.check === 'config' && result.status === 'pass');
  lines.push(saved ? 'The key is saved; fix the above and run `weft setup` again to check.' : 'Fix the above and run `weft setup` again.');
  return lines;
}

export function exitCodeOf(results: readonly CheckResult[]): number {
  return results.some((result) => result.status === 'fail') ? 1 : 0;
}
