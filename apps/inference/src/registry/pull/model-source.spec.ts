import { describe, expect, it } from 'vitest';
import { factsOf, defaultContextSize } from './gguf-facts';
import { defaultModelId, resolveModelSource } from './model-source';

describe('model sources', () => {
  it('resolves hf: against the configured hub, keeping sub-folders', () => {
    expect(resolveModelSource('hf:Qwen/Qwen2.5-Coder-7B-Instruct-GGUF/q4/model Q4.gguf', 'http://mirror.internal:8080/')).toEqual({
      source: 'hf:Qwen/Qwen2.5-Coder-7B-Instruct-GGUF/q4/model Q4.gguf',
      url: 'http://mirror.internal:8080/Qwen/Qwen2.5-Coder-7B-Instruct-GGUF/resolve/main/q4/model%20Q4.gguf',
      file: 'model_Q4.gguf',
      hub: true,
    });
  });

  it('takes an http(s) URL of a .gguf as it is', () => {
    expect(resolveModelSource('https://models.internal/a/coder.gguf?x=1', '')).toMatchObject({ url: 'https://models.internal/a/coder.gguf?x=1', file: 'coder.gguf', hub: false });
  });

  it('refuses what is neither, naming the two forms', () => {
    for (const bad of ['Qwen/repo/file.gguf', 'hf:owner/file.gguf', 'hf:o/r/../x.gguf', 'ftp://h/m.gguf', 'file:///m.gguf']) {
      expect(() => resolveModelSource(bad, 'https://huggingface.co'), bad).toThrow(/give hf:<owner>\/<repo>\/<file>\.gguf or an http\(s\) URL/);
    }
    expect(() => resolveModelSource('https://h/model.bin', '')).toThrow('does not name a .gguf file');
  });

  it('names a model after its file', () => {
    expect(defaultModelId('Qwen2.5-Coder-7B-Instruct-Q4_K_M.gguf')).toBe('Qwen2.5-Coder-7B-Instruct-Q4_K_M');
    expect(defaultModelId('my model (v2).gguf')).toBe('my-model--v2-');
  });
});

describe('what a GGUF says', () => {
  const metadata = (template?: string, fim = true) => ({
    general: { architecture: 'qwen2', name: 'Qwen2.5 Coder 7B Instruct' },
    qwen2: { context_length: 131072 },
    tokenizer: { ...(template ? { chat_template: template } : {}), ggml: fim ? { fim_pre_token_id: 1, fim_suf_token_id: 2, fim_mid_token_id: 3 } : { fim_pre_token_id: 1 } },
  });

  it('reads the trained context, the template, tool calls and FIM tokens', () => {
    const facts = factsOf(metadata('{% if tools %}{{ tools | tojson }}{% endif %}'));
    expect(facts).toEqual({ architecture: 'qwen2', name: 'Qwen2.5 Coder 7B Instruct', trainedContextSize: 131072, chatTemplate: true, toolCalls: true, fim: true });
    expect(defaultContextSize(facts)).toBe(32768);
  });

  it('says no tool calls without a template that renders tools, and no FIM without all three tokens', () => {
    expect(factsOf(metadata('{{ messages }}', false))).toMatchObject({ chatTemplate: true, toolCalls: false, fim: false });
    const bare = factsOf({ general: {} });
    expect(bare).toEqual({ chatTemplate: false, toolCalls: false, fim: false });
    expect(defaultContextSize(bare)).toBe(4096);
  });
});
