import { readFileSync } from 'node:fs';

/**
 * Settings that may instead be read from a file named by `<NAME>_FILE`, the way Docker Swarm and
 * Kubernetes hand out secrets (`/run/secrets/<name>`), so a secret never sits in the environment.
 */
export const SECRET_FILE_SETTINGS = ['WEFT_ADMIN_TOKEN', 'NATS_PASSWORD', 'WEFT_OIDC_CLIENT_SECRET'] as const;

export interface SecretFilesResult {
  env: NodeJS.ProcessEnv;
  problems: string[];
}

/** Copies each `<NAME>_FILE`'s contents into `<NAME>`; one trailing newline (as `echo` writes) is dropped. */
export function readSecretFiles(env: NodeJS.ProcessEnv, read: (path: string) => string = (path) => readFileSync(path, 'utf8')): SecretFilesResult {
  const resolved: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  for (const name of SECRET_FILE_SETTINGS) {
    const path = env[`${name}_FILE`];
    if (!path) continue;
    if (env[name] !== undefined && env[name] !== '') {
      problems.push(`${name}_FILE: set ${name} or ${name}_FILE, not both`);
      continue;
    }
    try {
      resolved[name] = read(path).replace(/\r?\n$/, '');
    } catch (error) {
      problems.push(`${name}_FILE: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
  }
  return { env: resolved, problems };
}
