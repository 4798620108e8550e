import { rmSync, writeFileSync } from 'node:fs';
import type { INestMicroservice } from '@nestjs/common';

/**
 * Starts listening, then writes the ready file that the container health check looks for.
 * The file goes away when the process exits, so a restarted worker is not healthy too early.
 */
export async function listenAndMarkReady(app: INestMicroservice, readyFile: string): Promise<void> {
  await app.listen();
  writeFileSync(readyFile, new Date().toISOString());
  process.once('exit', () => rmSync(readyFile, { force: true }));
}
