import type { ModelInfo } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { type CheckResult, exitCodeOf, modelKind, modelLines, readinessHint, readinessText, suggestedModel, summaryLines } from './setup-report';

const model = (id: string, provider: ModelInfo['provider'], extra: Partial<ModelInfo> = {}): ModelInfo => ({ id, provider, contextSize: 4096, ...extra });
const pass = (check: CheckResult['check'], text = 'ok'): CheckResult => ({ check, status: 'pass', text });

describe('modelKind', () => {
  it('calls llama local, openai and anthropic remote, and scripted scripted', () => {
    expect(modelKind('llama')).toBe('local');
    expect(modelKind('openai')).toBe('remote');
    expect(modelKind('anthropic')).toBe('remote');
    expect(modelKind('scripted')).toBe('scripted');
  });
});

describe('modelLines', () => {
  it('lists local models first, names the provider of remote ones and the roles, and leaves out empty kinds', () => {
    const lines = modelLines([
      model('scripted/demo', 'scripted'),
      model('claude', 'anthropic', { contextSize: 200000 }),
      model('qwen', 'llama', { contextSize: 16384, roles: ['senior'] }),
      model('tiny', 'llama', { contextSize: 2048 }),
    ]);
    expect(lines).toEqual([
      'local     qwen (context 16384, senior), tiny (context 2048)',
      'remote    claude (anthropic, context 200000)',
      'scripted  scripted/demo (context 4096)',
    ]);
    expect(modelLines([model('tiny', 'scripted')])).toEqual(['scripted  tiny (context 4096)']);
  });
});

describe('suggestedModel', () => {
  it('prefers a local model, then a remote one, then the demo script, then any', () => {
    expect(suggestedModel([model('scripted/demo', 'scripted'), model('gpt', 'openai'), model('qwen', 'llama')])).toBe('qwen');
    expect(suggestedModel([model('scripted/planner', 'scripted'), model('gpt', 'openai')])).toBe('gpt');
    expect(suggestedModel([model('scripted/planner', 'scripted'), model('scripted/demo', 'scripted')])).toBe('scripted/demo');
    expect(suggestedModel([model('tiny', 'scripted')])).toBe('tiny');
    expect(suggestedModel([])).toBeUndefined();
  });
});

describe('readinessText', () => {
  it('lists every dependency when ready and names the ones that are down otherwise', () => {
    expect(readinessText({ ready: true, checks: { redis: 'up', nats: 'up' }, down: [] })).toBe('Redis up · NATS up');
    expect(readinessText({ ready: false, checks: { redis: 'up', nats: 'down' }, down: ['nats'] })).toBe('NATS is down');
    expect(readinessText({ ready: false, checks: { redis: 'down', nats: 'down' }, down: ['redis', 'nats'] })).toBe('Redis and NATS are down');
    // An older gateway that sends only `checks`.
    expect(readinessText({ ready: false, checks: { redis: 'down', nats: 'up' }, down: [] })).toBe('Redis is down');
  });

  it('says what to look at', () => {
    expect(readinessHint({ ready: false, checks: {}, down: ['nats'] })).toBe(
      "the gateway cannot reach NATS: check that it runs (`docker compose ps`) and the gateway's REDIS_URL / NATS_URL",
    );
  });
});

describe('summaryLines', () => {
  it('shows the next commands with the suggested model when every check passed', () => {
    const lines = summaryLines({ results: [pass('gateway'), pass('key'), pass('config'), pass('models'), pass('sandbox')], model: 'qwen' });
    expect(lines[0]).toBe('Weft is ready. Next, in a project folder:');
    expect(lines[1]).toMatch(/^ {2}weft run "summarise this project" --model qwen {3}# one turn/);
    expect(lines[2]).toMatch(/^ {2}weft chat --model qwen +# a conversation/);
    // The comments line up.
    expect(new Set(lines.slice(1).map((line) => line.indexOf('#'))).size).toBe(1);
    expect(exitCodeOf([pass('gateway'), { check: 'key', status: 'warn', text: 'refused, replaced' }])).toBe(0);
  });

  it("lists each failed check with its hint, says whether the key was saved, and fails the exit code", () => {
    const results: CheckResult[] = [
      pass('gateway'),
      pass('key'),
      pass('config'),
      { check: 'models', status: 'fail', text: 'no models', hint: 'declare one' },
      { check: 'sandbox', status: 'fail', text: 'the sandbox cannot run commands' },
    ];
    expect(summaryLines({ results })).toEqual([
      '2 checks failed:',
      '  models: declare one',
      '  sandbox: the sandbox cannot run commands',
      'The key is saved; fix the above and run `weft setup` again to check.',
    ]);
    expect(exitCodeOf(results)).toBe(1);
    const unreachable = summaryLines({ results: [{ check: 'gateway', status: 'fail', text: 'cannot reach', hint: 'start it' }] });
    expect(unreachable).toEqual(['1 check failed:', '  gateway: start it', 'Fix the above and run `weft setup` again.']);
  });
});
