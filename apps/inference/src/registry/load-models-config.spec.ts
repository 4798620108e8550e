import { ConfigError, inferenceConfigSchema } from '@weft/config';
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
      expressSequences: 0,
      maxQueue: 16,
      streamIntervalMs: 50,
      cacheSharing: 'user',
      chatTemplate: 'auto',
      sampling: {},
      roles: [],
      embeddings: false,
      pinned: false,
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
      models: [tiny, { ...tiny, id: 't2', threads: 0 }, { id: 'x', provider: 'mystery', path: 'p' }, { ...tiny, id: 'bad id' }],
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

  it('takes an hf: or URL source as a download, and a plain source as a path', () => {
    const config = parseModelsConfig(
      {
        models: [
          { id: 'hf', provider: 'llama', source: 'hf:org/repo:Q4_K_M' },
          { id: 'url', provider: 'llama', source: 'https://example.com/m.gguf' },
          { id: 'file', provider: 'llama', source: 'm.gguf' },
        ],
      },
      '/models',
    );
    expect(config.models.map((m) => ('remote' in m ? m.remote : undefined))).toEqual(['hf:org/repo:Q4_K_M', 'https://example.com/m.gguf', undefined]);
    expect(config.models[2]).toMatchObject({ path: '/models/m.gguf' });
    expect(config.downloadDir).toBe('/models');
  });

  it('wants exactly one of path and source', () => {
    expect(problemsOf({ models: [{ id: 'a', provider: 'llama' }] })).toEqual([expect.stringMatching(/exactly one of "path" and "source"/)]);
    expect(problemsOf({ models: [{ ...tiny, source: 'x.gguf' }] })).toEqual([expect.stringMatching(/exactly one/)]);
  });

  it('accepts sampling defaults, roles, a chat template override and a queue bound', () => {
    const config = parseModelsConfig(
      {
        models: [
          {
            ...tiny,
            sampling: { temperature: 0.2, topP: 0.9, repeatPenalty: 1.1 },
            roles: ['senior'],
            chatTemplate: { jinja: '{{ messages }}' },
            maxQueue: 4,
            sequences: 8,
          },
        ],
      },
      '/models',
    );
    expect(config.models[0]).toMatchObject({ sampling: { temperature: 0.2, topP: 0.9 }, roles: ['senior'], maxQueue: 4, sequences: 8 });
    expect(problemsOf({ models: [{ ...tiny, sampling: { temprature: 1 } }] })).toEqual([expect.stringMatching(/sampling/)]);
    expect(problemsOf({ models: [{ ...tiny, chatTemplate: 'nonsense' }] })).toEqual([expect.stringMatching(/chatTemplate/)]);
  });

  it('declares remote models with their real context length and the variable holding the key', () => {
    const config = parseModelsConfig(
      {
        models: [
          { id: 'local-server', provider: 'openai', baseUrl: 'http://llama-server:8080/v1', contextSize: 32768, nativeTools: false },
          { id: 'claude', provider: 'anthropic', contextSize: 200000, roles: ['senior'] },
        ],
      },
      '/models',
    );
    expect(config.models[0]).toMatchObject({ provider: 'openai', nativeTools: false, timeoutMs: 300000 });
    expect(config.models[1]).toMatchObject({ provider: 'anthropic', apiKeyEnv: 'ANTHROPIC_API_KEY', baseUrl: 'https://api.anthropic.com', maxOutputTokens: 4096 });
    expect(problemsOf({ models: [{ id: 'o', provider: 'openai', baseUrl: 'http://x/v1' }] })).toEqual([expect.stringMatching(/models\.0\.contextSize/)]);
    expect(problemsOf({ models: [{ id: 'o', provider: 'openai', baseUrl: 'http://x/v1', contextSize: 1, apiKeyEnv: 'PATH' }] })).toEqual([
      expect.stringMatching(/ending in _API_KEY/),
    ]);
  });

  it('gathers *_API_KEY variables at boot, and nothing else of the environment', () => {
    const config = inferenceConfigSchema.parse({ OPENAI_API_KEY: 'sk-1', LOCAL_API_KEY: 'k', HOME: '/root', EMPTY_API_KEY: '' });
    expect(config.PROVIDER_API_KEYS).toEqual({ OPENAI_API_KEY: 'sk-1', LOCAL_API_KEY: 'k' });
  });

  it('names the file when it cannot be read', () => {
    expect(() => loadModelsConfig('/nonexistent/models.json', '/models')).toThrow(/MODELS_CONFIG \(\/nonexistent/);
  });
});
