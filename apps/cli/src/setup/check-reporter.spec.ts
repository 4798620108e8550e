import { createColors } from 'picocolors';
import { describe, expect, it } from 'vitest';
import { CheckReporter } from './check-reporter';

function sink(isTTY: boolean) {
  let text = '';
  return { stream: { isTTY, write: (chunk: string) => (text += chunk) }, text: () => text };
}

describe('CheckReporter', () => {
  it('writes one marked line per check, and only the outcome when not at a terminal', async () => {
    const out = sink(false);
    const reporter = new CheckReporter(out.stream, createColors(false));
    expect(await reporter.during('checking', async () => 42)).toBe(42);
    reporter.line({ check: 'gateway', status: 'pass', text: 'ready' });
    reporter.line({ check: 'key', status: 'warn', text: 'refused' });
    reporter.line({ check: 'models', status: 'fail', text: 'none' });
    reporter.line({ check: 'sandbox', status: 'skip', text: 'not checked' });
    reporter.detail('local  tiny');
    expect(out.text()).toBe('✓ ready\n! refused\n✗ none\n– not checked\n    local  tiny\n');
  });

  it('shows a spinner with the label at a terminal and clears its line when the work ends, even by failing', async () => {
    const out = sink(true);
    const reporter = new CheckReporter(out.stream, createColors(false));
    await expect(reporter.during('listing the models', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(out.text()).toContain('listing the models…');
    expect(out.text().endsWith('\r\u001b[2K')).toBe(true);
  });
});
