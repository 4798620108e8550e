import { hostname, userInfo } from 'node:os';
import { AdminClient } from '../admin-client';
import { ApiClient, type Me } from '../api-client';
import { AdminTokenRefusedError, ApiError, describeError } from '../errors';
import type { CheckReporter } from './check-reporter';
import type { Prompter } from './prompter';
import type { CheckResult } from './setup-report';

/** A key and where it came from, for the lines that talk about it. */
export interface KeyCandidate {
  readonly key: string;
  /** `--key`, `WEFT_KEY`, `the saved config`, `you typed`: where the key was found. */
  readonly source: string;
}

export interface KeySources {
  readonly candidate?: KeyCandidate;
  /** `--admin-token`, else WEFT_ADMIN_TOKEN. */
  readonly adminToken?: string;
  /** `--name`: the user to create as admin. */
  readonly name?: string;
}

export interface WorkingKey {
  readonly key: string;
  readonly me: Me;
  /** Made just now with the admin token: shown nowhere else, so it must not be lost. */
  readonly created: boolean;
}

const KEY_NAME = `weft setup on ${safeHostname()}`;
const ASK_ADMIN = 'ask your admin for a key (`weft admin create-key <user>`) and run `weft setup --key <key>`';

/**
 * Finds a key the gateway accepts: the one given, else, for the gateway's admin, a new admin user
 * and key made with the admin token (given, or asked for after they say they are the admin), so
 * the bootstrap token is needed this once.
 * `prompter` is undefined under `--yes`: nothing is asked, and what is missing fails the check.
 */
export class KeyFinder {
  constructor(
    private readonly url: string,
    private readonly reporter: CheckReporter,
    private readonly record: (result: CheckResult) => void,
    private readonly prompter: Prompter | undefined,
  ) {}

  async find(sources: KeySources): Promise<WorkingKey | undefined> {
    const candidate = sources.candidate ?? (sources.adminToken ? undefined : await this.askForKey());
    if (candidate === null) return undefined;
    if (candidate) {
      const checked = await this.check(candidate, Boolean(sources.adminToken) || Boolean(this.prompter));
      if (checked !== 'refused') return checked;
    }
    // Under --yes a refused key has already failed the check: only a prompter gets here without a token.
    const adminToken = sources.adminToken ?? (this.prompter && (await this.askForAdminToken(this.prompter, candidate !== undefined)));
    if (!adminToken) return undefined;
    const name = await this.userName(sources.name);
    if (!name) return undefined;
    const key = await this.createKey(adminToken, name);
    if (!key) return undefined;
    const checked = await this.check({ key, source: 'the new key' }, false);
    return checked === 'refused' || !checked ? undefined : { ...checked, created: true };
  }

  /** A key the user types; undefined when they are the admin instead (empty answer); null when there is no answer. */
  private async askForKey(): Promise<KeyCandidate | undefined | null> {
    if (!this.prompter) {
      this.fail('no API key given', 'pass --key <key> or set WEFT_KEY; as the gateway admin, pass --admin-token (or set WEFT_ADMIN_TOKEN) to make one');
      return null;
    }
    const key = await this.prompter.ask("your API key (weft_…; not shown as you type), or Enter if you are this gateway's admin and want to make one:", { secret: true });
    if (key === undefined) {
      this.fail('no API key (input ended)', 'pass --key <key>, or as the gateway admin --admin-token to make one');
      return null;
    }
    return key ? { key, source: 'you typed' } : undefined;
  }

  /** `refused` (401, 403) when another key may still be made; undefined after any other failure. */
  private async check(candidate: KeyCandidate, canReplace: boolean): Promise<WorkingKey | 'refused' | undefined> {
    try {
      const me = await this.reporter.during('checking the key', () => new ApiClient(this.url, candidate.key).me());
      this.record({ check: 'key', status: 'pass', text: `key accepted: you are ${me.name} (${me.id})` });
      return { key: candidate.key, me, created: false };
    } catch (error) {
      const refused = error instanceof ApiError && (error.status === 401 || error.status === 403);
      const text = `the gateway refused the key (${candidate.source}): ${describeError(error)}`;
      if (!refused) {
        this.record({ check: 'key', status: 'fail', text: `could not check the key: ${describeError(error)}`, hint: 'see the line above; is the gateway healthy?' });
        return undefined;
      }
      if (canReplace) {
        this.record({ check: 'key', status: 'warn', text });
        return 'refused';
      }
      this.record({ check: 'key', status: 'fail', text, hint: ASK_ADMIN });
      return undefined;
    }
  }

  private async askForAdminToken(prompter: Prompter, afterRefusal: boolean): Promise<string | undefined> {
    if (afterRefusal && !(await prompter.confirm("are you this gateway's admin (you have its WEFT_ADMIN_TOKEN) and want to make a user and key?"))) {
      this.fail('no working key, and no admin token to make one', ASK_ADMIN);
      return undefined;
    }
    const token = await prompter.ask("the gateway's admin token (WEFT_ADMIN_TOKEN in its .env, or an admin user's key; not shown as you type):", { secret: true });
    if (!token) this.fail('no admin token given', 'pass --admin-token <token>, or set WEFT_ADMIN_TOKEN');
    return token || undefined;
  }

  private async userName(given: string | undefined): Promise<string | undefined> {
    if (given?.trim()) return given.trim();
    const fallback = localUserName();
    if (this.prompter) {
      const name = await this.prompter.ask('name of the user to create (unique on this gateway):', { default: fallback });
      if (name) return name;
    } else if (fallback) {
      return fallback;
    }
    this.fail('no name for the user to create', 'pass --name <name>');
    return undefined;
  }

  /**
   * The user named `name`, made an admin (whoever holds the admin token runs the gateway), and a new
   * key of theirs; a user of that name who exists already gets the key and keeps their role.
   */
  private async createKey(adminToken: string, name: string): Promise<string | undefined> {
    const admin = new AdminClient(this.url, adminToken);
    try {
      const { user, existed } = await this.reporter.during(`creating user ${name} and a key`, async () => {
        try {
          return { user: await admin.createUser(name, 'admin'), existed: false };
        } catch (error) {
          if (!(error instanceof ApiError && error.status === 409)) throw error;
          const existing = (await admin.listUsers()).find((u) => u.name.toLowerCase() === name.toLowerCase());
          if (!existing) throw error;
          return { user: existing, existed: true };
        }
      });
      const created = await this.reporter.during(`creating a key for ${user.name}`, () => admin.createKey(user.id, { name: KEY_NAME }));
      const text = existed ? `user ${user.name} (${user.id}) already existed: made a new key for them` : `created user ${user.name} (${user.id}) and a key`;
      this.record({ check: 'key', status: 'pass', text: `${text} (${created.id}, "${KEY_NAME}")` });
      this.reporter.detail(
        user.role === 'admin'
          ? `${user.name} is an admin: \`weft admin\` works with this key; you may now rotate the bootstrap token (\`weft admin rotate-token\`) or turn it off (\`weft admin bootstrap-token off\`)`
          : `${user.name} is a member: \`weft admin role ${user.id} admin\` makes them an admin`,
      );
      return created.key;
    } catch (error) {
      const hint =
        error instanceof AdminTokenRefusedError
          ? "the admin token is WEFT_ADMIN_TOKEN in the gateway's .env (or its environment), the one `weft admin rotate-token` printed, or an admin user's key"
          : 'see the line above';
      this.record({ check: 'key', status: 'fail', text: `could not make a user and key: ${describeError(error)}`, hint });
      return undefined;
    }
  }

  private fail(text: string, hint: string): void {
    this.record({ check: 'key', status: 'fail', text, hint });
  }
}

/** The login name, the default for the user an admin creates; undefined where the OS has none. */
function localUserName(): string | undefined {
  try {
    return userInfo().username || undefined;
  } catch {
    return undefined; // no passwd entry (a container's arbitrary uid): the name is asked for or required
  }
}

function safeHostname(): string {
  try {
    return hostname();
  } catch {
    return 'this machine'; // only names the key
  }
}
