import { createLogger } from '@weft/logging';
import { describe, expect, it } from 'vitest';
import { llamaModelSchema } from '../registry/models-config.schema';
import { LlamaDriver } from './llama.driver';

describe("LlamaDriver's status (the fleet's view)", () => {
  it('counts express sequences in the total as the pool counts them in the free ones', async () => {
    const config = { ...llamaModelSchema.parse({ id: 'tiny', provider: 'llama', path: '/models/tiny.gguf', sequences: 2, expressSequences: 1 }), path: '/models/tiny.gguf' };
    const driver = new LlamaDriver([config], createLogger('test', 'silent'), { downloadDir: '/tmp' });
    const [status] = await driver.status();
    expect(status).toMatchObject({ id: 'tiny', sequences: 3, freeSequences: 3 });
    // What clients are told a model runs at once stays the configured sequences.
    expect((await driver.listModels())[0]?.sequences).toBe(2);
  });
});
