import { describe, expect, it } from 'vitest';
import { ModelUses } from './model-uses';

describe('model uses', () => {
  it('is idle at once for a model nothing runs on', async () => {
    await new ModelUses().idle({}, 60_000);
  });

  it('waits for the running calls of a model, not for those of another', async () => {
    const uses = new ModelUses();
    const model = {};
    const other = {};
    let finish!: () => void;
    const running = uses.run(model, () => new Promise<string>((resolve) => (finish = () => resolve('reply'))));
    void uses.run(other, () => new Promise(() => undefined));
    let idle = false;
    const waited = uses.idle(model, 60_000).then(() => (idle = true));
    await Promise.resolve();
    expect(idle).toBe(false);
    finish();
    expect(await running).toBe('reply');
    await waited;
    expect(idle).toBe(true);
  });

  it('gives up waiting after the timeout', async () => {
    const uses = new ModelUses();
    const model = {};
    void uses.run(model, () => new Promise(() => undefined));
    await uses.idle(model, 10);
  });
});
