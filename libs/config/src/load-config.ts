import { z } from 'zod';
import { readSecretFiles } from './secret-files';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Parses the environment once at boot, secrets given as `<NAME>_FILE` read in first. Fails with
 * every bad variable listed, not just the first.
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv = process.env): z.infer<S> {
  const secrets = readSecretFiles(env);
  const parsed = schema.safeParse(secrets.env);
  if (parsed.success && secrets.problems.length === 0) return parsed.data;
  throw new ConfigError([
    ...secrets.problems,
    ...(parsed.success ? [] : parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)),
  ]);
}
