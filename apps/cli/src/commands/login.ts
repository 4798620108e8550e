import { Command } from 'commander';
import { ApiClient } from '../api-client';
import { ConfigStore, normalizeUrl } from '../config-store';
import { outColors, type CliContext } from '../context';

export function loginCommand(ctx: CliContext): Command {
  return new Command('login')
    .description('check an API key against a gateway and remember both')
    .requiredOption('--url <gateway>', 'the gateway, e.g. http://weft.internal:8080')
    .requiredOption('--key <key>', 'your API key (weft_…)')
    .addHelpText('after', '\nStored in $XDG_CONFIG_HOME/weft/config.json (mode 0600). WEFT_URL and WEFT_KEY override it.')
    .action(async (options: { url: string; key: string }) => {
      const url = normalizeUrl(options.url);
      const me = await new ApiClient(url, options.key).me();
      const store = new ConfigStore(ctx.env);
      await store.save({ url, key: options.key });
      const c = outColors(ctx);
      ctx.stdout.write(`${c.green('✓')} logged in to ${url} as ${c.bold(me.name)} (${me.id})\n`);
      ctx.stdout.write(c.dim(`saved to ${store.path}\n`));
    });
}
