import { parse } from 'yaml';

/** One `${WEFT_...}` interpolation in the compose file, and where its value goes. */
export interface ComposeInterpolation {
  variable: string;
  /** The default after `:-` or `-`; undefined when there is none. */
  defaultValue?: string;
  /** Set when the variable must be given (`:?message`). */
  requiredMessage?: string;
  service: string;
  /** What the value sets, e.g. `environment.SANDBOX_EGRESS_ALLOWED`, `image`, `ports`, `volumes`. */
  target: string;
  /** The whole compose value the interpolation is in (`${WEFT_MODELS_SOURCE:-models}:/var/lib/weft/models:ro`). */
  value: string;
}

/** What the compose file gives a service's environment: fixed values, or a `.env` variable. */
export type ComposeEnvironment = Map<string, Map<string, string>>;

const INTERPOLATION = /\$\{(WEFT_[A-Z0-9_]+)(?:(:?-)([^}]*)|(:?\?)([^}]*))?\}/g;

/** Every `${WEFT_...}` in the compose file, with the service and setting it feeds. */
export function composeInterpolations(composeText: string): ComposeInterpolation[] {
  const found: ComposeInterpolation[] = [];
  const document = parse(composeText, { merge: true }) as Record<string, unknown>;
  const walk = (value: unknown, service: string, path: string[]): void => {
    if (typeof value === 'string') {
      for (const match of value.matchAll(INTERPOLATION)) {
        found.push({
          variable: match[1] ?? '',
          ...(match[2] !== undefined ? { defaultValue: match[3] ?? '' } : {}),
          ...(match[4] !== undefined ? { requiredMessage: match[5] ?? '' } : {}),
          service,
          target: path.join('.'),
          value,
        });
      }
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, service, path);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) walk(child, service, [...path, key]);
    }
  };
  for (const [name, service] of Object.entries(asRecord(document.services))) walk(service, name, []);
  for (const [name, volume] of Object.entries(asRecord(document.volumes))) walk(volume, `volume ${name}`, []);
  return found;
}

/** Each service's environment as the compose file writes it (after `<<:` merges). */
export function composeEnvironment(composeText: string): ComposeEnvironment {
  const document = parse(composeText, { merge: true }) as Record<string, unknown>;
  const services: ComposeEnvironment = new Map();
  for (const [name, service] of Object.entries(asRecord(document.services))) {
    const environment = asRecord(asRecord(service).environment);
    services.set(name, new Map(Object.entries(environment).map(([key, value]) => [key, String(value)])));
  }
  return services;
}

/** A compose value as the reference shows it: the `.env` variable it reads, or the fixed value. */
export function describeComposeValue(value: string): string {
  const variables = [...value.matchAll(INTERPOLATION)].map((match) => match[1]);
  if (variables.length > 0) return variables.map((name) => `\`${name}\``).join(', ');
  return value === '' ? '(empty)' : `\`${value}\``;
}

function asRecord(value: unknown): Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
