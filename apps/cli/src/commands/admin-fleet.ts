import type { Command } from 'commander';
import type { FleetWorker } from '../admin-client';
import { outColors, type CliContext } from '../context';
import { formatBytes } from '../format-bytes';
import { tableText } from '../table';
import type { AdminConnect } from './admin-connect';

/** `weft admin fleet`: one line per worker and model. */
export function addFleetCommand(admin: Command, ctx: CliContext, connect: AdminConnect): void {
  admin
    .command('fleet')
    .description('the inference workers the gateway hears from (on this host or others): models loaded, loading or unloaded, their memory, free sequences, cached sessions, GPU')
    .option('--json', 'print the answer as JSON')
    .action(async (options: { json?: boolean }) => {
      const workers = await (await connect()).fleet();
      if (options.json) {
        ctx.stdout.write(`${JSON.stringify({ workers }, null, 2)}\n`);
        return;
      }
      const c = outColors(ctx);
      if (workers.length === 0) {
        ctx.stdout.write(c.yellow('no inference worker is heard from: is one running, and does it reach NATS with its credentials?\n'));
        return;
      }
      const columns = [
        { header: 'WORKER' },
        { header: 'HOST' },
        { header: 'STATUS' },
        { header: 'MODEL' },
        { header: 'FREE', align: 'right' as const },
        { header: 'QUEUED', align: 'right' as const },
        { header: 'CACHED', align: 'right' as const },
        { header: 'STATE' },
        { header: 'MEMORY', align: 'right' as const },
        { header: 'GPU' },
        { header: 'MODEL MEMORY' },
        { header: 'LAST BEAT' },
      ];
      const now = Date.now();
      ctx.stdout.write(tableText(columns, workers.flatMap((worker) => rows(worker, now)), c));
      // A worker announces a load or unload at once; the other figures come with its beats (every 2 s by default).
      ctx.stdout.write(c.dim("figures as of each worker's LAST BEAT (a load or unload is announced at once)\n"));
    });
}

/**
 * One row per model. What belongs to the worker (its name, GPU, memory budget, last beat) is on its
 * first row alone: the budget is the worker's, not each model's.
 */
export function rows(worker: FleetWorker, now = Date.now()): string[][] {
  const gpu = worker.gpu ? `${worker.gpu.type} ${formatBytes(worker.gpu.vramUsedBytes)}/${formatBytes(worker.gpu.vramTotalBytes)}` : 'cpu';
  const beat = `${Math.max(0, Math.round((now - Date.parse(worker.lastHeartbeatAt)) / 1000))} s ago`;
  const models = worker.models.length > 0 ? worker.models : [undefined];
  return models.map((model, index) => {
    const first = index === 0;
    return [
      first ? worker.workerId : '',
      first ? (worker.host ?? '-') : '',
      first ? worker.status : '',
      model?.id ?? '-',
      model ? `${model.freeSequences}${model.sequences === null ? '' : `/${model.sequences}`}` : '-',
      model ? String(model.queued) : '-',
      model ? String(model.cachedSessions) : '-',
      model ? `${model.state ?? (model.loaded ? 'loaded' : 'unloaded')}${model.pinned ? ' (pinned)' : ''}` : '-',
      model?.memoryBytes == null ? '-' : formatBytes(model.memoryBytes),
      first ? gpu : '',
      first ? (worker.memory ? `${formatBytes(worker.memory.usedBytes)}/${formatBytes(worker.memory.budgetBytes)}` : '-') : '',
      first ? beat : '',
    ];
  });
}
