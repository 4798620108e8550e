import type { LimitOverridesBody } from '@weft/contracts';
import { formatCount } from './format';
import type { Limits } from './types';

export type LimitField = keyof Limits;

/** The quotas in the order the pages show them; 0 turns a quota off (not the weight, which is at least 1). */
export const LIMIT_FIELDS: ReadonlyArray<{ field: LimitField; label: string; unit: string }> = [
  { field: 'requestsPerMinute', label: 'Requests per minute', unit: 'requests' },
  { field: 'concurrentTurns', label: 'Turns at once', unit: 'turns' },
  { field: 'tokensPerDay', label: 'Tokens per day', unit: 'tokens' },
  { field: 'sandboxSecondsPerDay', label: 'Sandbox seconds per day', unit: 's' },
  { field: 'weight', label: 'Fair-share weight', unit: '×' },
];
const MAX_WEIGHT = 100;
const MAX_QUOTA = 1_000_000_000_000;

export function describeLimit(field: LimitField, value: number): string {
  if (field === 'weight') return `× ${value}`;
  if (value === 0) return 'no limit';
  return field === 'sandboxSecondsPerDay' ? `${formatCount(value)} s` : formatCount(value);
}

/** What share of a daily quota is used, 0–1; null when the quota is off. */
export function usedShare(used: number, limit: number): number | null {
  if (limit <= 0) return null;
  return Math.min(1, used / limit);
}

export type LimitForm = Record<LimitField, string>;

/** The form's fields from a user's overrides: empty where the server default applies. */
export function limitForm(overrides: Partial<Limits>): LimitForm {
  const form = {} as LimitForm;
  for (const { field } of LIMIT_FIELDS) form[field] = overrides[field] === undefined ? '' : String(overrides[field]);
  return form;
}

/**
 * The overrides a filled-in form asks for (an empty field: the default), or what is wrong with
 * each field, checked as the gateway checks them.
 */
export function overridesFromForm(form: LimitForm): { overrides: LimitOverridesBody } | { errors: Partial<Record<LimitField, string>> } {
  const overrides: LimitOverridesBody = {};
  const errors: Partial<Record<LimitField, string>> = {};
  for (const { field } of LIMIT_FIELDS) {
    const text = form[field].trim();
    if (text === '') continue;
    const value = Number(text);
    const [min, max] = field === 'weight' ? [1, MAX_WEIGHT] : [0, MAX_QUOTA];
    if (!/^\d+$/.test(text) || !Number.isSafeInteger(value)) errors[field] = 'a whole number, or empty for the default';
    else if (value < min || value > max) errors[field] = `from ${min} to ${formatCount(max)}`;
    else overrides[field] = value;
  }
  return Object.keys(errors).length > 0 ? { errors } : { overrides };
}
