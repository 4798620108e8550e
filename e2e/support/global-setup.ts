import { isStackHealthy, startStack, stopStack } from './stack';

/**
 * Brings the compose stack up once for all e2e files and takes it down after the last.
 * WEFT_E2E_KEEP=1 (debugging) reuses a healthy stack and leaves it up, logs and all.
 */
export default async function setup(): Promise<() => void> {
  const keep = process.env.WEFT_E2E_KEEP === '1';
  if (!(keep && isStackHealthy())) await startStack();
  return () => {
    if (!keep) stopStack();
  };
}
