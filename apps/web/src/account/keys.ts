import { formatCount, utcDay } from './format';

const DAY_MS = 86_400_000;
/** Within this, a key's expiry is shown as a warning. */
const SOON_MS = 7 * DAY_MS;

/** How long a new key lives: a number of days, a chosen last day, or for ever. */
export type ExpiryChoice = 'never' | '30' | '90' | '365' | 'date';

export const EXPIRY_CHOICES: ReadonlyArray<{ value: ExpiryChoice; label: string }> = [
  { value: 'never', label: 'Never' },
  { value: '30', label: 'In 30 days' },
  { value: '90', label: 'In 90 days' },
  { value: '365', label: 'In a year' },
  { value: 'date', label: 'After a chosen day' },
];

/**
 * `expiresAt` for the create-key body, or why the choice cannot be used. A chosen day is the
 * key's last: it expires when that UTC day ends.
 */
export function expiresAtFor(choice: ExpiryChoice, lastDay: string, now = new Date()): { expiresAt?: string } | { error: string } {
  switch (choice) {
    case 'never':
      return {};
    case '30':
    case '90':
    case '365':
      return { expiresAt: new Date(now.getTime() + Number(choice) * DAY_MS).toISOString() };
    case 'date': {
      const start = Date.parse(`${lastDay}T00:00:00Z`);
      if (!/^\d{4}-\d{2}-\d{2}$/.test(lastDay) || Number.isNaN(start)) return { error: 'Pick the last day the key works.' };
      const end = start + DAY_MS;
      if (end <= now.getTime()) return { error: 'That day is over: pick today or a later one.' };
      return { expiresAt: new Date(end).toISOString() };
    }
  }
}

/** The key's expiry as a person reads it, and whether it is past or close. */
export function keyExpiry(expiresAt: string | null, now = new Date()): { text: string; state: 'never' | 'ok' | 'soon' | 'expired' } {
  if (!expiresAt) return { text: 'never expires', state: 'never' };
  const at = Date.parse(expiresAt);
  if (Number.isNaN(at)) return { text: `expires ${expiresAt}`, state: 'ok' };
  const left = at - now.getTime();
  if (left <= 0) return { text: `expired ${utcDay(new Date(at))}`, state: 'expired' };
  const days = Math.ceil(left / DAY_MS);
  if (left <= SOON_MS) return { text: `expires in ${days === 1 ? 'a day or less' : `${days} days`}`, state: 'soon' };
  return { text: `expires ${utcDay(new Date(at))} (${formatCount(days)} days)`, state: 'ok' };
}
