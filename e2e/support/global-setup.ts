import { startStack, stopStack } from './stack';

/** Brings the compose stack up once for all e2e files and takes it down after the last. */
export default async function setup(): Promise<() => void> {
  await startStack();
  return () => stopStack();
}
