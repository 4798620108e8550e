import { describe, expect, it } from 'vitest';
import { CappedOutput } from './capped-output';

describe('CappedOutput', () => {
  it('keeps everything under the cap and is not truncated', () => {
    const out = new CappedOutput(10);
    out.push(Buffer.from('hello'));
    out.push(Buffer.from('world'));
    expect(out.text()).toBe('helloworld');
    expect(out.truncated).toBe(false);
    expect(out.cutBytes).toBe(0);
  });

  it('keeps the first and the last bytes and says how many were cut between them', () => {
    const out = new CappedOutput(8);
    out.push(Buffer.from('hello'));
    out.push(Buffer.from('world'));
    out.push(Buffer.from('!!'));
    expect(out.truncated).toBe(true);
    expect(out.cutBytes).toBe(4);
    expect(out.text()).toBe('hell\n[... 4 bytes cut ...]\nld!!');
  });

  it('keeps consuming after the cap, holding only the head and the latest tail', async () => {
    const out = new CappedOutput(4);
    const sink = out.writable();
    for (let i = 0; i < 1000; i++) sink.write(Buffer.alloc(1024, i === 999 ? 'z' : 'x'));
    await new Promise<void>((resolve) => sink.end(resolve));
    expect(out.text()).toBe(`xx\n[... ${1024 * 1000 - 4} bytes cut ...]\nzz`);
    expect(out.truncated).toBe(true);
  });
});
