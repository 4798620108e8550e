import { describe, expect, it } from 'vitest';
import { CappedOutput } from './capped-output';

describe('CappedOutput', () => {
  it('keeps everything under the cap and is not truncated', () => {
    const out = new CappedOutput(10);
    out.push(Buffer.from('hello'));
    out.push(Buffer.from('world'));
    expect(out.text()).toBe('helloworld');
    expect(out.truncated).toBe(false);
  });

  it('keeps the first bytes and flags truncation when a chunk crosses the cap', () => {
    const out = new CappedOutput(8);
    out.push(Buffer.from('hello'));
    out.push(Buffer.from('world'));
    expect(out.text()).toBe('hellowor');
    expect(out.truncated).toBe(true);
  });

  it('keeps consuming and discarding after the cap is reached', async () => {
    const out = new CappedOutput(4);
    const sink = out.writable();
    for (let i = 0; i < 1000; i++) sink.write(Buffer.alloc(1024, 'x'));
    await new Promise<void>((resolve) => sink.end(resolve));
    expect(out.text()).toBe('xxxx');
    expect(out.truncated).toBe(true);
  });
});
