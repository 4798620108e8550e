import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { LOGGER } from '../../infra/tokens';
import { OIDC_SETTINGS, type OidcSettings } from './oidc-settings';
import { WebSessionRefresh } from './web-session-refresh';
import { WebSessionsRepository } from './web-sessions.repository';

/** Sessions refreshed per round; the rest wait for the next round. */
const BATCH = 50;
/** Rounds come at half the refresh interval, within these bounds. */
const MIN_ROUND_MS = 250;
const MAX_ROUND_MS = 30_000;

/**
 * Refreshes browser sessions at the provider when due, whether or not the browser makes requests:
 * a page that only holds an event stream open still loses it when the provider refuses the
 * refresh. Every replica runs rounds; a session's lock lets one of them refresh it.
 */
@Injectable()
export class WebSessionKeeper implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private round?: Promise<void>;

  constructor(
    private readonly sessions: WebSessionsRepository,
    private readonly refresh: WebSessionRefresh,
    @Inject(OIDC_SETTINGS) private readonly settings: OidcSettings | undefined,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (!this.settings) return;
    const every = Math.min(MAX_ROUND_MS, Math.max(MIN_ROUND_MS, (this.settings.refreshSeconds * 1000) / 2));
    this.timer = setInterval(() => {
      this.round ??= this.refreshDue().finally(() => (this.round = undefined));
    }, every);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.round;
  }

  private async refreshDue(): Promise<void> {
    try {
      for (const id of await this.sessions.due(Date.now(), BATCH)) {
        const session = await this.sessions.find(id);
        if (!session || Date.parse(session.expiresAt) <= Date.now()) {
          await this.sessions.forget(id);
          continue;
        }
        // An ended session throws its reason, already acted on; anything else is worth a line.
        await this.refresh.refreshIfDue(session).catch((err: unknown) => {
          if (!(err instanceof AppError) || (err.code !== ErrorCode.Unauthorized && err.code !== ErrorCode.Forbidden)) throw err;
        });
      }
    } catch (err) {
      this.logger.warn({ err }, 'refreshing browser sessions at the identity provider failed; trying again next round');
    }
  }
}
