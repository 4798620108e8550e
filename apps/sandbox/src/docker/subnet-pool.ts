import { createHash } from 'node:crypto';

/** An IPv4 block: its first address as an unsigned 32-bit number, and its prefix length. */
interface Block {
  base: number;
  prefix: number;
}

/** Mirrors the config's defaults, for an adapter made without them (the boot's preflight). */
export const DEFAULT_PROXY_SUBNETS = { range: '10.213.0.0/16', prefix: 27 } as const;

const CIDR = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})\/(\d{1,2})$/;

function parseCidr(cidr: string): Block | undefined {
  const match = CIDR.exec(cidr.trim());
  if (!match) return undefined;
  const octets = match.slice(1, 5).map(Number);
  const prefix = Number(match[5]);
  if (octets.some((o) => o > 255) || prefix > 32) return undefined;
  const address = octets.reduce((n, o) => n * 256 + o, 0);
  const size = 2 ** (32 - prefix);
  return { base: address - (address % size), prefix };
}

function format(block: Block): string {
  const octets = [24, 16, 8, 0].map((shift) => Math.floor(block.base / 2 ** shift) % 256);
  return `${octets.join('.')}/${block.prefix}`;
}

function overlaps(a: Block, b: Block): boolean {
  const aEnd = a.base + 2 ** (32 - a.prefix);
  const bEnd = b.base + 2 ** (32 - b.prefix);
  return a.base < bEnd && b.base < aEnd;
}

/**
 * The subnets users' proxy networks take: `range` cut into blocks of `prefix` bits. Docker's own
 * default pools hold about 30 networks; a range Weft configures holds as many as the admin needs,
 * and explicit subnets never draw from those pools.
 */
export class SubnetPool {
  private readonly block: Block;

  constructor(
    readonly range: string,
    readonly prefix: number,
  ) {
    const block = parseCidr(range);
    if (!block || prefix < block.prefix || prefix > 32) throw new Error(`not a subnet range for /${prefix} networks: ${range}`);
    this.block = block;
  }

  /** How many networks the range holds. */
  get size(): number {
    return 2 ** (this.prefix - this.block.prefix);
  }

  /** The subnet of slot `index` (0 ≤ index < size). */
  slot(index: number): string {
    return format({ base: this.block.base + index * 2 ** (32 - this.prefix), prefix: this.prefix });
  }

  /** Where a key's search starts: spread by hash, so users seldom contend for one slot. */
  startFor(key: string): number {
    return createHash('sha256').update(key).digest().readUInt32BE(0) % this.size;
  }

  /** Slots in search order for `key`, leaving out those that overlap a subnet in `taken`. */
  *candidates(key: string, taken: () => string[]): Generator<string> {
    const start = this.startFor(key);
    for (let i = 0; i < this.size; i++) {
      const subnet = this.slot((start + i) % this.size);
      const block = parseCidr(subnet)!;
      if (!taken().some((other) => overlapsCidr(block, other))) yield subnet;
    }
  }

  contains(subnet: string): boolean {
    const block = parseCidr(subnet);
    return block !== undefined && block.prefix >= this.block.prefix && overlaps(block, this.block);
  }
}

function overlapsCidr(block: Block, cidr: string): boolean {
  const other = parseCidr(cidr);
  return other !== undefined && overlaps(block, other);
}

