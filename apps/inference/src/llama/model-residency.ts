import { planRoom, type ResidentModel } from './room-plan';

interface Entry {
  bytes: number;
  pinned: boolean;
  lastUsedAt: number;
}

export interface ResidencyOptions {
  /** The memory budget: a number, or found on the first admission (the device's size needs llama.cpp started). */
  budgetBytes: number | (() => Promise<number>);
  /** Whether a call runs on the model or it is still loading: such a model is not evicted. */
  busy: (modelId: string) => boolean;
  /** Unloads an idle model to make room; it calls `release` once its memory is free. */
  evict: (modelId: string) => Promise<void>;
}

/**
 * Keeps the loaded models within the worker's memory budget. A load is admitted once its
 * estimated bytes fit, after unloading the least recently used idle models (never a pinned one);
 * when only busy models could make room it waits for one to go idle. Admissions run one at a
 * time, so two loads never count the same free bytes.
 */
export class ModelResidency {
  private readonly entries = new Map<string, Entry>();
  private admissions: Promise<unknown> = Promise.resolve();
  private wakers: (() => void)[] = [];
  private budget?: number;

  constructor(private readonly options: ResidencyOptions) {
    if (typeof options.budgetBytes === 'number') this.budget = options.budgetBytes;
  }

  /** Reserves `bytes` for `modelId`; throws a plain Error when it can never fit. */
  admit(modelId: string, bytes: number, pinned: boolean): Promise<void> {
    const next = this.admissions.then(() => this.makeRoom(modelId, bytes, pinned));
    this.admissions = next.catch(() => undefined);
    return next;
  }

  /** The model's memory is free again (unloaded, or its load failed). */
  release(modelId: string): void {
    if (this.entries.delete(modelId)) this.wake();
  }

  touch(modelId: string): void {
    const entry = this.entries.get(modelId);
    if (entry) entry.lastUsedAt = performance.now();
  }

  /** A model went idle: a load waiting for room plans again. */
  wake(): void {
    for (const wake of this.wakers.splice(0)) wake();
  }

  bytesOf(modelId: string): number | undefined {
    return this.entries.get(modelId)?.bytes;
  }

  memory(): { budgetBytes: number; usedBytes: number } | undefined {
    if (this.budget === undefined) return undefined;
    return { budgetBytes: this.budget, usedBytes: [...this.entries.values()].reduce((sum, e) => sum + e.bytes, 0) };
  }

  /** Idle, unpinned models unused for `ttlMs`. */
  expired(ttlMs: number): string[] {
    const before = performance.now() - ttlMs;
    return [...this.entries].filter(([id, e]) => !e.pinned && e.lastUsedAt <= before && !this.options.busy(id)).map(([id]) => id);
  }

  private async makeRoom(modelId: string, bytes: number, pinned: boolean): Promise<void> {
    if (typeof this.options.budgetBytes === 'function') this.budget ??= await this.options.budgetBytes();
    const budget = this.budget ?? 0;
    for (;;) {
      const plan = planRoom(this.residents(modelId), bytes, budget);
      switch (plan.kind) {
        case 'fits':
          this.entries.set(modelId, { bytes, pinned, lastUsedAt: performance.now() });
          return;
        case 'evict':
          await Promise.all(plan.ids.map((id) => this.options.evict(id)));
          break;
        case 'wait':
          await new Promise<void>((resolve) => this.wakers.push(resolve));
          break;
        case 'never':
          throw new Error(`it does not fit in this worker's model memory: ${plan.reason} (MODELS_MAX_LOADED_BYTES)`);
      }
    }
  }

  private residents(except: string): ResidentModel[] {
    return [...this.entries]
      .filter(([id]) => id !== except)
      .map(([id, e]) => ({ id, bytes: e.bytes, pinned: e.pinned, lastUsedAt: e.lastUsedAt, busy: this.options.busy(id) }));
  }
}
