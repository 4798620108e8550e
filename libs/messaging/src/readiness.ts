import { rmSync, writeFileSync } from 'node:fs';
import type { INestMicroservice } from '@nestjs/common';

/**
 * Writes the ready file that the container health check looks for. It goes away when the
 * process exits, so a restarted worker is not reported healthy too early.
 */
export function markReady(readyFile: string): void {
  writeFileSync(readyFile, new Date().toISOString());
  process.once('exit', () => rmSync(readyFile, { force: true }));
}

/** Starts listening on NATS, then marks the worker ready. */
export async function listenAndMarkReady(app: INestMicroservice, readyFile: string): Promise<void> {
  await app.listen();
  markReady(readyFile);
}
