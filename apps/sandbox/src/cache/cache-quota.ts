import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import type { SandboxConfig } from '@weft/config';
import type { Logger } from '@weft/logging';
import { CONTAINER_RUNTIME, type ContainerRuntime } from '../docker/container-runtime';
import { LOGGER, SANDBOX_CONFIG } from '../tokens';
import { EMPTY_SCRIPT, MEASURE_SCRIPT, buildCacheSpec, cacheVolumeName } from './cache-spec';

/** A user's cache is measured at most this often (per worker replica). */
export const CACHE_CHECK_INTERVAL_MS = 30_000;
/** `du` over a cache of many small files (an npm cache) on a busy disk. */
const CACHE_TOOL_TIMEOUT_MS = 120_000;
const MIB = 1024 * 1024;

export interface CacheMeasurement {
  ownerId: string;
  volume: string;
  /** What `du` counted; undefined when it could not read everything (the cache is emptied then). */
  bytes: number | undefined;
  maxBytes: number;
  emptied: boolean;
  measuredAt: number;
}

/**
 * Keeps each user's package cache volume under SANDBOX_CACHE_MAX_MB. A command cannot be stopped
 * mid-write and the volume has no size of its own, so the volume is measured after commands and
 * emptied when over: a cache can be refilled from the registries, and nothing the user keeps
 * lives there. The check runs in the background, never delaying the command's result.
 */
@Injectable()
export class CacheQuota implements OnApplicationShutdown {
  private readonly startedAt = new Map<string, number>();
  private readonly running = new Map<string, Promise<CacheMeasurement | undefined>>();
  private readonly latest = new Map<string, CacheMeasurement>();

  constructor(
    @Inject(SANDBOX_CONFIG) private readonly config: SandboxConfig,
    @Inject(CONTAINER_RUNTIME) private readonly runtime: Pick<ContainerRuntime, 'run'>,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  /** After a command of the user's: a check, unless one ran in the last 30 s or is running. */
  afterCommand(ownerId: string, now = Date.now()): void {
    if (this.running.has(ownerId) || now - (this.startedAt.get(ownerId) ?? -Infinity) < CACHE_CHECK_INTERVAL_MS) return;
    this.startedAt.set(ownerId, now);
    const check = this.check(ownerId)
      .catch((error: unknown) => {
        this.logger.warn({ err: error, ownerId }, 'could not check a package cache');
        return undefined;
      })
      .finally(() => this.running.delete(ownerId));
    this.running.set(ownerId, check);
  }

  /** A stopping worker waits for its checks: each runs a container it must not leave behind. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.allSettled(this.running.values());
  }

  /** The user's check under way, else the last one's result. */
  async settled(ownerId: string): Promise<CacheMeasurement | undefined> {
    return (await this.running.get(ownerId)) ?? this.latest.get(ownerId);
  }

  /** The last measurement of the user's cache this worker made, for usage to show. */
  measured(ownerId: string): CacheMeasurement | undefined {
    return this.latest.get(ownerId);
  }

  async check(ownerId: string): Promise<CacheMeasurement> {
    const volume = cacheVolumeName(ownerId);
    const maxBytes = this.config.SANDBOX_CACHE_MAX_MB * MIB;
    const bytes = await this.measure(volume);
    // A folder the user made unreadable hides what is under it: unmeasured counts as over.
    const emptied = bytes === undefined || bytes > maxBytes;
    if (emptied) await this.empty(volume);
    const measurement: CacheMeasurement = { ownerId, volume, bytes, maxBytes, emptied, measuredAt: Date.now() };
    this.latest.set(ownerId, measurement);
    if (emptied) this.logger.warn({ ownerId, volume, cacheBytes: bytes, maxBytes }, 'package cache over SANDBOX_CACHE_MAX_MB (or unreadable): emptied');
    else this.logger.info({ ownerId, volume, cacheBytes: bytes, maxBytes }, 'package cache measured');
    return measurement;
  }

  private async measure(volume: string): Promise<number | undefined> {
    const outcome = await this.tool(volume, MEASURE_SCRIPT, true);
    const bytes = /^(\d+)\s/.exec(outcome.stdout)?.[1];
    return outcome.exitCode === 0 && bytes !== undefined ? Number(bytes) : undefined;
  }

  private async empty(volume: string): Promise<void> {
    const outcome = await this.tool(volume, EMPTY_SCRIPT, false);
    if (outcome.exitCode !== 0) throw new Error(`emptying ${volume} exited ${String(outcome.exitCode)}: ${outcome.stderr.slice(0, 500)}`);
  }

  private tool(volume: string, script: string, readOnly: boolean) {
    const spec = buildCacheSpec(volume, script, readOnly, this.config, Date.now() + CACHE_TOOL_TIMEOUT_MS);
    return this.runtime.run(spec, { timeoutMs: CACHE_TOOL_TIMEOUT_MS, outputMaxBytes: 4096 });
  }
}
