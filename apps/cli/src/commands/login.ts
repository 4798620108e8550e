import { Command, Option } from 'commander';
import { ApiClient } from '../api-client';
import { ConfigStore, normalizeUrl } from '../config-store';
import { outColors, type CliContext } from '../context';
import { type SignInMethod, loginThroughProvider } from './login-sso';

export function loginCommand(ctx: CliContext): Command {
  return new Command('login')
    .description('sign in to a gateway, with an API key or through its identity provider (SSO), and remember it')
    .requiredOption('--url <gateway>', 'the gateway, e.g. http://weft.internal:8080')
    .option('--key <key>', 'your API key (weft_…); without it, sign in through the identity provider (SSO)')
    .option('--key-name <name>', 'with SSO: the name of the API key minted for this CLI')
    .addOption(
      new Option('--sign-in <method>', 'with SSO: device (a code confirmed in any browser), browser (this machine\'s browser, on a loopback redirect), or auto: device where the provider offers it')
        .choices(['auto', 'device', 'browser'])
        .default('auto'),
    )
    .option('--no-open', 'with SSO in a browser: print the link, do not open the browser')
    .addHelpText('after', '\nStored in $XDG_CONFIG_HOME/weft/config.json (mode 0600). WEFT_URL and WEFT_KEY override it.')
    .action(async (options: { url: string; key?: string; keyName?: string; signIn: SignInMethod; open: boolean }) => {
      const url = normalizeUrl(options.url);
      if (!options.key) return loginThroughProvider(ctx, url, { method: options.signIn, open: options.open, ...(options.keyName ? { keyName: options.keyName } : {}) });
      const me = await new ApiClient(url, options.key).me();
      const store = new ConfigStore(ctx.env);
      await store.save({ url, key: options.key });
      const c = outColors(ctx);
      ctx.stdout.write(`${c.green('✓')} logged in to ${url} as ${c.bold(me.name)} (${me.id})\n`);
      ctx.stdout.write(c.dim(`saved to ${store.path}\n`));
    });
}
