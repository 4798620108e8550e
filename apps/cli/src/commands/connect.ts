import { homedir } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import { replyTokenLimit } from '@weft/contracts';
import { ConfigStore, resolveCredentials } from '../config-store';
import { confirm } from '../confirm';
import { CONNECT_CLIENTS, connectClient, type Homes } from '../connect/clients';
import { ConnectApi, pickModel } from '../connect/connect-api';
import { connectClientFiles, type ConnectIo } from '../connect/connect-flow';
import { type ConnectTarget, replyBudget } from '../connect/connect-target';
import { sdkSnippet } from '../connect/sdk-snippet';
import { verifyOverHttp } from '../connect/verify-request';
import { type CliContext, status } from '../context';
import { UsageError } from '../errors';

interface ConnectOptions {
  readonly model?: string;
  readonly key?: string;
  readonly newKey?: string;
  readonly yes?: boolean;
}

const CLIENT_IDS = [...CONNECT_CLIENTS.map((client) => client.id), 'sdk'];

export function connectCommand(ctx: CliContext): Command {
  return new Command('connect')
    .description("write a coding agent's user-level settings for this Weft (or print the SDKs' snippet), check them with one request, say how to undo it")
    .addArgument(new Command().createArgument('<client>', 'which client').choices(CLIENT_IDS))
    .option('--model <id>', 'the model to use (default: the first model that is not a scripted test model)')
    .option('--key <key>', 'the Weft key to write (default: the one `weft login` saved, or WEFT_KEY)')
    .addOption(new Option('--new-key <name>', 'make a new key of your own with this name and write it').conflicts('key'))
    .option('-y, --yes', 'change files that exist without asking (the diff is still shown)')
    .action(async (clientId: string, options: ConnectOptions) => {
      const target = await connectTarget(ctx, options);
      status(ctx, `${target.model}: a context window of ${target.contextWindow} tokens, replies up to ${target.replyTokens}`);
      if (clientId === 'sdk') {
        ctx.stdout.write(sdkSnippet(target));
        await verifyOverHttp('chat', target);
        status(ctx, `Checked: ${target.model} answered a request with this key.`);
        return;
      }
      const client = connectClient(clientId);
      if (!client) throw new UsageError(`unknown client ${clientId}`);
      const io: ConnectIo = { say: (text) => ctx.stdout.write(text.endsWith('\n') ? text : `${text}\n`), confirm: (question) => confirm(ctx, question) };
      await connectClientFiles(io, client, homesOf(ctx), target, { yes: Boolean(options.yes), verify: verifyOverHttp });
    });
}

async function connectTarget(ctx: CliContext, options: ConnectOptions): Promise<ConnectTarget> {
  const saved = await resolveCredentials(new ConfigStore(ctx.env), { ...ctx.env, ...(options.key ? { WEFT_KEY: options.key } : {}) });
  const api = new ConnectApi(saved.url, saved.key);
  const model = pickModel(await api.models(), options.model);
  const key = options.newKey ? await api.createKey(options.newKey) : saved.key;
  if (options.newKey) status(ctx, `made the key "${options.newKey}" (revoke it with the web page's key list if you undo this)`);
  const maxOutputTokens = model.maxOutputTokens ?? replyTokenLimit(model.contextSize);
  return { url: saved.url, key, model: model.id, contextWindow: model.contextSize, replyTokens: replyBudget(model.contextSize, maxOutputTokens) };
}

function homesOf(ctx: CliContext): Homes {
  const home = ctx.env.HOME || homedir();
  return { home, configHome: ctx.env.XDG_CONFIG_HOME || join(home, '.config') };
}
