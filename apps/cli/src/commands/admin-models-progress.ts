import type { AdminModel, PullLine, PullModelBody } from '@weft/contracts';
import { SingleBar } from 'cli-progress';
import { errColors, type CliContext } from '../context';
import { formatBytes } from '../format-bytes';
import type { ModelsAdminClient } from './admin-models-client';

/** Without a terminal, a line at every tenth of the file. */
const PLAIN_STEPS = 10;

/**
 * Pulls a model with its progress on stderr: a bar (cli-progress) at a terminal, a line per tenth
 * otherwise (logs, CI). Resolves with the registered model.
 */
export async function pullWithProgress(ctx: CliContext, models: ModelsAdminClient, body: PullModelBody): Promise<AdminModel> {
  const c = errColors(ctx);
  const bar = ctx.stderr.isTTY
    ? new SingleBar({
        stream: ctx.stderr as unknown as NodeJS.WritableStream,
        format: ' {phase} |{bar}| {percentage}% · {done} of {size} · {speed}/s · ETA {eta_formatted}',
        barsize: 30,
        hideCursor: true,
        clearOnComplete: true,
        etaBuffer: 40,
      })
    : undefined;
  let total = 0;
  let started = Date.now();
  let firstBytes = 0;
  let lastStep = -1;
  const show = (phase: string, value: number) => {
    const seconds = Math.max(0.001, (Date.now() - started) / 1000);
    const payload = { phase, done: formatBytes(value), size: total ? formatBytes(total) : '?', speed: formatBytes(Math.max(0, (value - firstBytes) / seconds)) };
    if (bar) {
      bar.setTotal(total || Math.max(value, 1));
      bar.update(value, payload);
      return;
    }
    const step = total ? Math.floor((value / total) * PLAIN_STEPS) : -1;
    if (step > lastStep) {
      lastStep = step;
      ctx.stderr.write(`${phase} ${payload.done} of ${payload.size} (${Math.round((value / (total || 1)) * 100)}%)\n`);
    }
  };
  const onLine = (line: PullLine) => {
    switch (line.type) {
      case 'started': {
        total = line.totalBytes ?? 0;
        firstBytes = line.resumedFrom;
        started = Date.now();
        const resumed = line.resumedFrom > 0 ? `, resuming at ${formatBytes(line.resumedFrom)}` : '';
        ctx.stderr.write(`${c.dim(`pulling ${line.file} as "${line.id}" from ${line.url} (${total ? formatBytes(total) : 'size unknown'}${resumed}; checksum: ${checksumText(line.checksum)})`)}\n`);
        bar?.start(total || 1, line.resumedFrom, { phase: 'download', done: formatBytes(line.resumedFrom), size: total ? formatBytes(total) : '?', speed: '0 B' });
        return;
      }
      case 'progress':
        if (line.totalBytes) total = line.totalBytes;
        show('download', line.downloadedBytes);
        return;
      case 'verifying':
        if (lastStep !== -2 && !bar) ctx.stderr.write('verifying the SHA-256…\n');
        if (lastStep !== -2) {
          lastStep = -2;
          started = Date.now();
          firstBytes = 0;
        }
        total = line.totalBytes;
        if (bar) show('verify  ', line.hashedBytes);
        return;
      case 'done':
      case 'error':
        return;
    }
  };
  try {
    return await models.pull(body, onLine);
  } finally {
    bar?.stop();
  }
}

function checksumText(source: 'hub' | 'sha256-file' | 'given' | 'none'): string {
  switch (source) {
    case 'hub':
      return "the hub's SHA-256";
    case 'sha256-file':
      return 'the .sha256 beside the URL';
    case 'given':
      return '--sha256';
    case 'none':
      return 'none published: only the size is checked (pass --sha256 to check it)';
  }
}

/** One paragraph on what was registered, for `pull` and `weft setup`. */
export function pulledSummary(model: AdminModel): string[] {
  const gguf = model.gguf;
  const facts = gguf
    ? [
        gguf.architecture ? `${gguf.architecture}${gguf.name ? ` (${gguf.name})` : ''}` : undefined,
        `context ${model.contextSize}${gguf.trainedContextSize ? ` of ${gguf.trainedContextSize} trained` : ''}`,
        gguf.chatTemplate ? 'chat template from the GGUF' : 'no chat template in the GGUF (a generic one is used)',
        `tool calls: ${gguf.toolCalls ? 'yes' : 'no (the template has no tools)'}`,
        `fill-in-the-middle: ${gguf.fim ? 'yes' : 'no'}`,
      ].filter((part) => part !== undefined)
    : [];
  return [
    `pulled "${model.id}": ${model.file ?? ''}, ${model.sizeBytes !== undefined ? formatBytes(model.sizeBytes) : '?'}, sha256 ${model.sha256 ?? '?'}`,
    ...(facts.length ? [`  ${facts.join(' · ')}`] : []),
  ];
}
