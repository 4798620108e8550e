import { ConfigError } from '@weft/config';
import { describe, expect, it } from 'vitest';
import { loadModelsConfig, parseModelsConfig } from './load-models-config';

const tiny = { id: 'tiny', provider: 'llama', path: 'tiny.gguf' };

function problemsOf(raw: unknown): string[] {
  try {
    parseModelsConfig(raw, '/models');
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('expected a ConfigError');
}

describe('model registry', () => {
  it('resolves relative paths against MODELS_DIR and fills defaults', () => {
    const config = parseModelsConfig({ models: [tiny], scripted: { dir: 'scripts' } }, '/models');
    expect(config.models[0]).toEqual({
      ...tiny,
      path: '/models/tiny.gguf',
      contextSize: 4096,
      threads: 1,
      gpuLayers: 'auto',
      sequences: 2,
    });
    expect(config.scripted).toEqual({ dir: '/models/scripts' });
  });

  it('keeps absolute paths and numeric gpuLayers', () => {
    const config = parseModelsConfig({ models: [{ ...tiny, path: '/opt/m.gguf', gpuLayers: 0 }] }, '/models');
    expect(config.models[0]).toMatchObject({ path: '/opt/m.gguf', gpuLayers: 0 });
    expect(config.scripted).toBeUndefined();
  });

  it('lists every problem at once', () => {
    const problems = problemsOf({
      models: [tiny, { ...tiny, id: 't2', threads: 0 }, { id: 'x', provider: 'openai', path: 'p' }, { ...tiny, id: 'bad id' }],
    });
    expect(problems).toHaveLength(3);
    expect(problems.join('\n')).toMatch(/models\.1\.threads/);
    expect(problems.join('\n')).toMatch(/models\.2\.provider/);
    expect(problems.join('\n')).toMatch(/models\.3\.id/);
  });

  it('rejects duplicate model ids', () => {
    expect(problemsOf({ models: [tiny, tiny] })).toEqual([expect.stringMatching(/duplicate model id "tiny"/)]);
  });

  it('rejects gpuLayers other than a count or "auto"', () => {
    expect(problemsOf({ models: [{ ...tiny, gpuLayers: 'max' }] })).toEqual([expect.stringMatching(/gpuLayers/)]);
  });

  it('names the file when it cannot be read', () => {
    expect(() => loadModelsConfig('/nonexistent/models.json', '/models')).toThrow(/MODELS_CONFIG \(\/nonexistent/);
  });
});
