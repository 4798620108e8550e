/** How long an unloaded model's running calls may go on before it is disposed under them. */
export const UNLOAD_DRAIN_MS = 120_000;

/**
 * Counts the calls running on each loaded model, so that a model removed or reloaded with other
 * settings (`weft admin models`) is disposed once its replies are done, not in the middle of them.
 */
export class ModelUses {
  private readonly uses = new Map<object, { running: number; idle: (() => void)[] }>();

  /** `onIdle` hears of every model whose last call ended (a load waiting for room may go on). */
  constructor(private readonly onIdle: () => void = () => undefined) {}

  /** Whether a call runs (or waits for a sequence) on `model`. */
  busy(model: object): boolean {
    return this.uses.has(model);
  }

  async run<T>(model: object, work: () => T | Promise<T>): Promise<T> {
    const entry = this.uses.get(model) ?? { running: 0, idle: [] };
    this.uses.set(model, entry);
    entry.running++;
    try {
      return await work();
    } finally {
      entry.running--;
      if (entry.running === 0) {
        this.uses.delete(model);
        for (const wake of entry.idle.splice(0)) wake();
        this.onIdle();
      }
    }
  }

  /** Resolves when no call runs on `model`, or after `timeoutMs`. */
  async idle(model: object, timeoutMs = UNLOAD_DRAIN_MS): Promise<void> {
    const entry = this.uses.get(model);
    if (!entry) return;
    let timer: NodeJS.Timeout | undefined;
    await new Promise<void>((resolve) => {
      entry.idle.push(resolve);
      timer = setTimeout(resolve, timeoutMs);
    });
    clearTimeout(timer);
  }
}
