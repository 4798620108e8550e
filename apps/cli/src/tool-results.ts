/** Results a chat keeps for `/expand` and `/tool N`; the oldest go first past this many. */
export const MAX_KEPT_RESULTS = 100;

export interface KeptResult {
  /** 1-based, counted over the whole chat (not reused when old ones are dropped). */
  readonly number: number;
  readonly call: string;
  readonly output: string;
  readonly isError: boolean;
}

/** The tool results shown in this terminal, whole, so a cut one can be opened again. */
export class ToolResults {
  private readonly kept: KeptResult[] = [];
  private count = 0;

  add(call: string, output: string, isError: boolean): number {
    this.count += 1;
    this.kept.push({ number: this.count, call, output, isError });
    if (this.kept.length > MAX_KEPT_RESULTS) this.kept.shift();
    return this.count;
  }

  last(): KeptResult | undefined {
    return this.kept.at(-1);
  }

  get(number: number): KeptResult | undefined {
    return this.kept.find((result) => result.number === number);
  }

  all(): readonly KeptResult[] {
    return this.kept;
  }
}
