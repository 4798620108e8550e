import type { ContainerSpec } from '../docker/container-runtime';
import { CACHE_TARGET, baseSpec, type SpecLimits } from '../exec/container-spec';

/** A user's package cache volume; persisted on running engines, do not rename. */
export function cacheVolumeName(ownerId: string): string {
  return `weft-cache-${ownerId}`;
}

/**
 * A throwaway container that looks after a cache volume: the lean image, the sandbox user, no
 * network, the usual limits. None of the user's processes runs in it, so what it reports about
 * the volume is the volume's, not what a command of theirs chose to answer.
 */
export function buildCacheSpec(volume: string, script: string, readOnly: boolean, config: SpecLimits, runsUntil: number): ContainerSpec {
  return {
    ...baseSpec(config, runsUntil),
    cmd: ['bash', '-c', script],
    workingDir: '/tmp',
    extraMounts: [{ type: 'volume', volume, target: CACHE_TARGET, readOnly }],
    openStdin: false,
  };
}

/** Prints `<bytes>\t/cache`: apparent sizes, hard links once, this filesystem only. */
export const MEASURE_SCRIPT = `du -sbx ${CACHE_TARGET}`;

/**
 * Everything under the mount point goes. Go's module cache makes its folders read-only, hence
 * the chmod first; every file there is the sandbox user's, so it may.
 */
export const EMPTY_SCRIPT = `chmod -R u+rwX ${CACHE_TARGET} 2>/dev/null; find ${CACHE_TARGET} -mindepth 1 -delete`;
