import { randomBytes } from 'node:crypto';
import { Inject, Injectable, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import type { Logger } from '@weft/logging';
import type { Redis } from 'ioredis';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { RedisKeys } from '../infra/redis-keys';
import { LOGGER, REDIS } from '../infra/tokens';
import { UsersRepository } from '../users/users.repository';
import { WorkspacesRepository } from './workspaces.repository';
import { WorkspacesService } from './workspaces.service';

const DAY_MS = 24 * 60 * 60_000;

export interface IdleWorkspace {
  id: string;
  ownerId: string;
  name: string;
  lastUsedAt: string;
}

export interface ExpiryReport {
  idleDays: number;
  /** Workspaces last used at or before this are idle. */
  cutoff: string;
  dryRun: boolean;
  /** Deleted (or, in a dry run, those that would be). */
  expired: IdleWorkspace[];
  /** Idle when listed, left alone: used since, a turn running in it, or busy with a sync or delete. */
  skipped: Array<IdleWorkspace & { reason: 'in use' | 'busy' }>;
}

/**
 * Deletes workspaces no session has used for WORKSPACE_IDLE_DAYS, as DELETE does. Every replica
 * runs the timer; a lease in Redis lets one sweep per interval, and each workspace is claimed
 * (the lock a sync and a delete take) while it is looked at again and deleted.
 */
@Injectable()
export class WorkspaceExpiry implements OnApplicationBootstrap, OnModuleDestroy {
  private timer?: NodeJS.Timeout;
  private sweeping?: Promise<void>;

  constructor(
    private readonly users: UsersRepository,
    private readonly records: WorkspacesRepository,
    private readonly workspaces: WorkspacesService,
    @Inject(REDIS) private readonly redis: Redis,
    private readonly keys: RedisKeys,
    @Inject(GATEWAY_CONFIG) private readonly config: Pick<GatewaySettings, 'WORKSPACE_IDLE_DAYS' | 'WORKSPACE_EXPIRY_INTERVAL_MS'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  onApplicationBootstrap(): void {
    if (this.config.WORKSPACE_IDLE_DAYS <= 0) return;
    this.timer = setInterval(() => this.tick(), this.config.WORKSPACE_EXPIRY_INTERVAL_MS);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  /** Finds the workspaces idle for `idleDays` and, unless `dryRun`, deletes them. */
  async expire(idleDays: number, dryRun: boolean, now = new Date()): Promise<ExpiryReport> {
    const cutoff = new Date(now.getTime() - idleDays * DAY_MS);
    const report: ExpiryReport = { idleDays, cutoff: cutoff.toISOString(), dryRun, expired: [], skipped: [] };
    for (const user of await this.users.list()) {
      for (const w of await this.records.listOwned(user.id)) {
        if (Date.parse(w.lastUsedAt) > cutoff.getTime()) continue;
        const idle = { id: w.id, ownerId: w.ownerId, name: w.name, lastUsedAt: w.lastUsedAt };
        if (dryRun) {
          const running = await this.records.sessionsRunningIn(user.id, w.id);
          if (running.length > 0) report.skipped.push({ ...idle, reason: 'in use' });
          else report.expired.push(idle);
          continue;
        }
        const outcome = await this.workspaces.expireIfIdle(user.id, w.id, cutoff);
        if (outcome === 'expired') {
          this.logger.info({ workspaceId: w.id, ownerId: w.ownerId, lastUsedAt: w.lastUsedAt, idleDays }, 'idle workspace expired');
          report.expired.push(idle);
        } else if (outcome !== 'gone') {
          report.skipped.push({ ...idle, reason: outcome });
        }
      }
    }
    return report;
  }

  private tick(): void {
    if (this.sweeping) return;
    this.sweeping = this.sweep()
      .catch((err: unknown) => this.logger.error({ err }, 'idle workspace sweep failed'))
      .finally(() => (this.sweeping = undefined));
  }

  private async sweep(): Promise<void> {
    const lease = randomBytes(8).toString('hex');
    // Kept (not released) so other replicas skip the rest of this interval.
    const won = await this.redis.set(this.keys.workspaceExpiryLease(), lease, 'PX', Math.max(this.config.WORKSPACE_EXPIRY_INTERVAL_MS - 50, 50), 'NX');
    if (won !== 'OK') return;
    const report = await this.expire(this.config.WORKSPACE_IDLE_DAYS, false);
    if (report.expired.length > 0 || report.skipped.length > 0) {
      this.logger.info({ idleDays: report.idleDays, expired: report.expired.length, skipped: report.skipped.length }, 'idle workspace sweep done');
    }
  }
}
