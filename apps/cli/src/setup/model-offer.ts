import { totalmem } from 'node:os';
import { AdminClient } from '../admin-client';
import { pullWithProgress, pulledSummary } from '../commands/admin-models-progress';
import type { CliContext } from '../context';
import { describeError } from '../errors';
import type { CheckReporter } from './check-reporter';
import type { Prompter } from './prompter';
import { recommendFor, type HostMemory } from './recommended-models';
import type { CheckResult } from './setup-report';

const GiB = 1024 ** 3;

/**
 * The admin's part of `weft setup`: when no model has been pulled yet, a short list of coding models
 * sized to the host, and (asked, at a terminal) the pull of the one chosen. Returns the id of a
 * pulled model to suggest in the next steps, when there is one.
 */
export async function offerModels(ctx: CliContext, url: string, adminKey: string, reporter: CheckReporter, record: (result: CheckResult) => void, prompter: Prompter | undefined): Promise<string | undefined> {
  const admin = new AdminClient(url, adminKey);
  let pulled: string | undefined;
  try {
    pulled = (await admin.models().list()).find((model) => model.origin === 'pulled')?.id;
  } catch (error) {
    reporter.note(`could not read the model registry: ${describeError(error)}`);
    return undefined;
  }
  if (pulled) return pulled;
  const memory = await hostMemory(admin);
  const { models, fits } = recommendFor(memory);
  record({ check: 'pull', status: 'warn', text: `no model pulled yet (the stack's demo model tiny has random weights: its answers are noise). Coding models for the ${memory.describe}:` });
  models.forEach((model, index) => reporter.detail(`${index + 1}) ${model.id.padEnd(20)} ${`${(model.sizeBytes / 1e9).toFixed(1)} GB`.padStart(8)}  ${model.note}`));
  if (!fits) reporter.detail('(none fits comfortably: the smallest is shown; expect it to be slow)');
  if (!prompter) {
    reporter.detail(`pull one: weft admin models pull ${models[0]?.source ?? '<hf:owner/repo/file.gguf | URL>'}`);
    return undefined;
  }
  const answer = await prompter.ask(`pull one now? ${models.map((_, i) => i + 1).join('/')}, an hf:…/URL of your own, or Enter to skip:`);
  if (!answer) return undefined;
  const chosen = /^\d+$/.test(answer) ? models[Number(answer) - 1] : undefined;
  if (/^\d+$/.test(answer) && !chosen) {
    reporter.note(`there is no model ${answer} in the list: pull one later with weft admin models pull <source>`);
    return undefined;
  }
  try {
    const model = await pullWithProgress(ctx, admin.models(), chosen ? { source: chosen.source, id: chosen.id } : { source: answer });
    const [first, ...rest] = pulledSummary(model);
    record({ check: 'pull', status: 'pass', text: first ?? `pulled ${model.id}` });
    for (const line of rest) reporter.detail(line.trim());
    return model.id;
  } catch (error) {
    record({ check: 'pull', status: 'fail', text: `the pull failed: ${describeError(error)}`, hint: 'fix what the line above says (hf: sources come from WEFT_HF_ENDPOINT in the stack\'s .env), then: weft admin models pull <source> (a broken download resumes)' });
    return undefined;
  }
}

/** The largest GPU a worker reports, else this machine's RAM (setup usually runs beside the stack). */
async function hostMemory(admin: AdminClient): Promise<HostMemory> {
  const gpus = (await admin.fleet().catch(() => [])).flatMap((worker) => (worker.gpu ? [worker.gpu] : []));
  const largest = gpus.sort((a, b) => b.vramTotalBytes - a.vramTotalBytes)[0];
  if (largest) return { kind: 'gpu', bytes: largest.vramTotalBytes, describe: `GPU (${largest.type}, ${Math.round(largest.vramTotalBytes / GiB)} GiB)` };
  return { kind: 'ram', bytes: totalmem(), describe: `RAM of this machine (${Math.round(totalmem() / GiB)} GiB; no GPU reported by the fleet)` };
}
