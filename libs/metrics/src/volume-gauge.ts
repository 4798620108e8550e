import { statfs } from 'node:fs/promises';
import { Gauge, type Registry } from 'prom-client';

/**
 * `<name>{volume}`: the bytes free to this process on the filesystems it writes to, read with
 * statfs on each scrape, so an alert sees a volume filling without a node exporter. A path that
 * cannot be read is left out of the scrape rather than failing it.
 */
export function volumeFreeBytesGauge(registry: Registry, name: string, volumes: Record<string, string>): Gauge<'volume'> {
  return new Gauge({
    name,
    help: 'Bytes free to this process on the volume (statfs bavail × bsize)',
    labelNames: ['volume'],
    registers: [registry],
    async collect() {
      this.reset();
      for (const [volume, path] of Object.entries(volumes)) {
        const stats = await statfs(path).catch(() => undefined);
        if (stats) this.set({ volume }, stats.bavail * stats.bsize);
      }
    },
  });
}
