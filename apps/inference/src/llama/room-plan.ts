/** A model that holds (or is reserving) part of the worker's memory budget. */
export interface ResidentModel {
  id: string;
  bytes: number;
  pinned: boolean;
  /** When a request last used it (ms, any monotonic clock). */
  lastUsedAt: number;
  /** A call runs or waits on it, or it is still loading: not a candidate for eviction. */
  busy: boolean;
}

/** What it takes to load a model of `bytes` next to the resident ones. */
export type RoomPlan =
  | { kind: 'fits' }
  /** Unload these (least recently used idle ones first), then it fits. */
  | { kind: 'evict'; ids: string[] }
  /** Only busy models could make room: wait until one is idle and plan again. */
  | { kind: 'wait' }
  /** It can never fit: the budget, or the budget less the pinned models, is too small. */
  | { kind: 'never'; reason: string };

export function planRoom(resident: readonly ResidentModel[], bytes: number, budgetBytes: number): RoomPlan {
  if (bytes > budgetBytes) return { kind: 'never', reason: `it needs ${mib(bytes)} and the budget is ${mib(budgetBytes)}` };
  const pinned = resident.filter((m) => m.pinned).reduce((sum, m) => sum + m.bytes, 0);
  if (bytes + pinned > budgetBytes) {
    return { kind: 'never', reason: `it needs ${mib(bytes)} and pinned models hold ${mib(pinned)} of the budget of ${mib(budgetBytes)}` };
  }
  let free = budgetBytes - resident.reduce((sum, m) => sum + m.bytes, 0);
  if (bytes <= free) return { kind: 'fits' };
  const ids: string[] = [];
  for (const model of resident.filter((m) => !m.pinned && !m.busy).sort((a, b) => a.lastUsedAt - b.lastUsedAt)) {
    ids.push(model.id);
    free += model.bytes;
    if (bytes <= free) return { kind: 'evict', ids };
  }
  return { kind: 'wait' };
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
