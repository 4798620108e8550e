import { existsSync } from 'node:fs';
import type { ModelInfo } from '@weft/contracts';
import { ApiClient } from '../api-client';
import { ConfigStore, normalizeUrl, type Credentials } from '../config-store';
import type { CliContext } from '../context';
import { ApiError, ConnectionError, UsageError, describeError } from '../errors';
import type { CheckReporter } from './check-reporter';
import type { Prompter } from './prompter';
import { offerModels } from './model-offer';
import { HOST_CA_BUNDLES, packageCheckResults } from './package-checks';
import { probeReadiness } from './readiness';
import { KeyFinder, type KeyCandidate, type WorkingKey } from './setup-key';
import { type CheckResult, exitCodeOf, modelLines, readinessHint, readinessText, suggestedModel, summaryLines } from './setup-report';

/** Where a gateway runs when nothing says otherwise: `docker compose up` on this machine. */
export const DEFAULT_GATEWAY_URL = 'http://localhost:8080';

export interface SetupOptions {
  readonly url?: string;
  readonly key?: string;
  readonly adminToken?: string;
  readonly name?: string;
  readonly yes?: boolean;
}

/**
 * `weft setup`: the gateway, its readiness, a working key (made by the admin when need be), the
 * saved config, the models and the sandbox, one line each, then what to do next. Returns the exit
 * code: 0 when every check passed.
 */
export class SetupFlow {
  private readonly results: CheckResult[] = [];
  private readonly store: ConfigStore;

  constructor(
    private readonly ctx: CliContext,
    private readonly options: SetupOptions,
    private readonly reporter: CheckReporter,
    /** Undefined under `--yes`. */
    private readonly prompter: Prompter | undefined,
  ) {
    this.store = new ConfigStore(ctx.env);
  }

  async run(): Promise<number> {
    const saved = await this.savedConfig();
    const url = await this.gatewayUrl(saved);
    if (url && (await this.checkReady(url))) {
      const working = await new KeyFinder(url, this.reporter, (result) => this.record(result), this.prompter).find({
        candidate: this.keyCandidate(url, saved),
        adminToken: this.options.adminToken || this.ctx.env.WEFT_ADMIN_TOKEN,
        name: this.options.name,
      });
      if (working) {
        await this.save(url, working);
        const client = new ApiClient(url, working.key);
        // The admin (who can pull) is offered real models first, so the models check sees the one pulled.
        const pulled = working.me.role === 'admin' ? await offerModels(this.ctx, url, working.key, this.reporter, (result) => this.record(result), this.prompter) : undefined;
        const models = await this.checkModels(client);
        await this.checkSandbox(client);
        return this.finish(models, pulled);
      }
      this.record({ check: 'models', status: 'skip', text: 'models not checked: no working key' });
      this.record({ check: 'sandbox', status: 'skip', text: 'sandbox not checked: no working key' });
    }
    return this.finish([]);
  }

  private async savedConfig(): Promise<Credentials | undefined> {
    try {
      return await this.store.load();
    } catch (error) {
      this.reporter.note(`${describeError(error)}; setup will replace it`);
      return undefined;
    }
  }

  /** `--url`, WEFT_URL, the saved one; else asked (default localhost:8080), or under --yes that default. */
  private async gatewayUrl(saved: Credentials | undefined): Promise<string | undefined> {
    const given = this.options.url || this.ctx.env.WEFT_URL || saved?.url;
    if (given) return normalizeUrl(given);
    if (!this.prompter) {
      this.reporter.note(`no --url, WEFT_URL or saved gateway: trying ${DEFAULT_GATEWAY_URL}`);
      return DEFAULT_GATEWAY_URL;
    }
    for (;;) {
      const typed = await this.prompter.ask('gateway URL:', { default: DEFAULT_GATEWAY_URL });
      if (typed === undefined) {
        this.record({ check: 'gateway', status: 'fail', text: 'no gateway URL (input ended)', hint: 'pass --url <gateway> or set WEFT_URL' });
        return undefined;
      }
      try {
        return normalizeUrl(typed);
      } catch (error) {
        if (!(error instanceof UsageError)) throw error;
        this.reporter.note(error.message);
      }
    }
  }

  private async checkReady(url: string): Promise<boolean> {
    try {
      const readiness = await this.reporter.during(`checking the gateway at ${url}`, () => probeReadiness(url));
      if (readiness.ready) {
        this.record({ check: 'gateway', status: 'pass', text: `gateway at ${url} is ready (${readinessText(readiness)})` });
        return true;
      }
      this.record({ check: 'gateway', status: 'fail', text: `gateway at ${url} answers but is not ready: ${readinessText(readiness)}`, hint: readinessHint(readiness) });
    } catch (error) {
      const hint =
        error instanceof ConnectionError
          ? 'start it (`docker compose up -d`), or pass its address: weft setup --url <gateway>'
          : 'check the address: weft setup --url <gateway>';
      this.record({ check: 'gateway', status: 'fail', text: describeError(error), hint });
    }
    return false;
  }

  /** `--key`, WEFT_KEY, then the saved key when it was saved for this gateway. */
  private keyCandidate(url: string, saved: Credentials | undefined): KeyCandidate | undefined {
    if (this.options.key) return { key: this.options.key, source: '--key' };
    if (this.ctx.env.WEFT_KEY) return { key: this.ctx.env.WEFT_KEY, source: 'WEFT_KEY' };
    if (saved && normalizeUrl(saved.url) === url) return { key: saved.key, source: `saved in ${this.store.path}` };
    return undefined;
  }

  private async save(url: string, working: WorkingKey): Promise<void> {
    try {
      await this.store.save({ url, key: working.key });
      this.record({ check: 'config', status: 'pass', text: `saved the gateway and key to ${this.store.path}` });
      const overriding = [
        this.ctx.env.WEFT_URL && normalizeUrl(this.ctx.env.WEFT_URL) !== url ? 'WEFT_URL' : undefined,
        this.ctx.env.WEFT_KEY && this.ctx.env.WEFT_KEY !== working.key ? 'WEFT_KEY' : undefined,
      ].filter((name) => name !== undefined);
      if (overriding.length) this.reporter.detail(`${overriding.join(' and ')} in your environment override${overriding.length === 1 ? 's' : ''} it: unset to use the saved one`);
    } catch (error) {
      this.record({ check: 'config', status: 'fail', text: `could not save to ${this.store.path}: ${describeError(error)}`, hint: 'make the folder writable, or set XDG_CONFIG_HOME' });
      // Only its hash is on the gateway: a new key that is not saved must at least be seen.
      if (working.created) this.reporter.detail(`the new key, shown this once: ${working.key}`);
    }
  }

  private async checkModels(client: ApiClient): Promise<ModelInfo[]> {
    try {
      const models = await this.reporter.during('listing the models', () => client.models());
      if (models.length === 0) {
        this.record({ check: 'models', status: 'fail', text: 'the gateway offers no models', hint: 'as the admin, pull one: weft admin models pull <hf:owner/repo/file.gguf | URL> (docs/models.md)' });
        return [];
      }
      this.record({ check: 'models', status: 'pass', text: `${models.length} model${models.length === 1 ? '' : 's'} on offer` });
      for (const line of modelLines(models)) this.reporter.detail(line);
      return models;
    } catch (error) {
      this.record({ check: 'models', status: 'fail', text: `could not list the models: ${describeError(error)}`, hint: 'is an inference worker running? (`docker compose ps inference`, `docker compose logs inference`)' });
      return [];
    }
  }

  private async checkSandbox(client: ApiClient): Promise<void> {
    try {
      const { durationMs, packages } = await this.reporter.during('running `true` in the sandbox, then npm and pip fetching a package', () => client.sandboxCheck());
      this.record({ check: 'sandbox', status: 'pass', text: `the sandbox runs commands (\`true\` took ${durationMs} ms)` });
      const { results, details } = packageCheckResults(packages ?? [], HOST_CA_BUNDLES.find((path) => existsSync(path)));
      for (const result of results) this.record(result);
      for (const line of details) this.reporter.detail(line);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        this.record({ check: 'sandbox', status: 'skip', text: 'sandbox not checked: this gateway has no /v1/sandbox/check (it is older than this CLI)' });
        return;
      }
      this.record({ check: 'sandbox', status: 'fail', text: `the sandbox cannot run commands: ${describeError(error)}`, hint: sandboxHint(error) });
    }
  }

  private record(result: CheckResult): void {
    this.results.push(result);
    this.reporter.line(result);
  }

  private finish(models: readonly ModelInfo[], pulled?: string): number {
    const code = exitCodeOf(this.results);
    this.reporter.summary(summaryLines({ results: this.results, model: pulled ?? suggestedModel(models) }), code !== 0);
    return code;
  }
}

function sandboxHint(error: unknown): string {
  const code = error instanceof ApiError ? error.code : undefined;
  if (code === 'TRANSPORT.NO_RESPONDERS' || code === 'TRANSPORT.TIMEOUT') {
    return 'no sandbox worker answered: start it (`docker compose up -d sandbox`) and read `docker compose logs sandbox`';
  }
  if (code === 'SANDBOX.UNAVAILABLE') {
    return 'the sandbox worker cannot start containers: check its Docker socket and that the sandbox images are built (`npm run setup`), and read `docker compose logs sandbox`';
  }
  return 'read `docker compose logs sandbox`';
}
