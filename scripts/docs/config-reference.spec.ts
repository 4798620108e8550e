import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { composeInterpolations } from './compose-settings';
import { CONFIG_REFERENCE_PATH, renderConfigReference } from './config-reference';
import { SchemaComments } from './schema-comments';

describe('docs/configuration.md', () => {
  it('is what npm run docs:config generates from the config schemas and the compose file', () => {
    const committed = readFileSync(CONFIG_REFERENCE_PATH, 'utf8');
    // On a difference: run `npm run docs:config` and commit docs/configuration.md.
    expect(committed).toBe(renderConfigReference());
  });

  it('lists every variable of every service schema, with its comment', () => {
    const reference = renderConfigReference();
    expect(reference).toMatch(/\| `WEFT_ADMIN_TOKEN` \| required \|/);
    expect(reference).toContain('| `KV_STATE_MAX_BYTES` | `8589934592` | `WEFT_KV_STATE_MAX_BYTES` |');
    expect(reference).toContain('| `COMPAT_LOG_PROMPT_CHANGES` | `false` |');
    expect(reference).toContain('How long a response stored by the OpenAI Responses API');
  });

  it('lists every field of the model registry by provider, with its default and what it accepts', () => {
    const reference = renderConfigReference();
    expect(reference).toContain('| `gpuLayers` | `auto` | integer ≥ 0 or `auto` |');
    expect(reference).toMatch(/\| `contextSize` \| required \| integer ≥ 1 \| The model's real context length/);
    expect(reference).toContain('| `apiKeyEnv` | `ANTHROPIC_API_KEY` |');
    expect(reference).toContain('or `{ "jinja": … }` |');
  });
});

describe('SchemaComments', () => {
  const source = `
    const shared = {
      /** Where the thing is. */
      THING_URL: z.string(),
    };
    const base = z.object({
      ...shared,
      /**
       * Two lines
       * of comment.
       */
      LIMIT: z.number(),
      BARE: z.string(),
    });
    export const wrapped = z.preprocess(
      fn,
      base
        .extend({
          /** Added. */
          EXTRA: z.string(),
        })
        .superRefine(check),
    );
  `;

  it('follows spreads, extend, superRefine and preprocess, in source order', () => {
    const comments = new SchemaComments([{ fileName: 'config.ts', text: source }]).of('wrapped');
    expect([...comments.entries()]).toEqual([
      ['THING_URL', 'Where the thing is.'],
      ['LIMIT', 'Two lines of comment.'],
      ['BARE', ''],
      ['EXTRA', 'Added.'],
    ]);
  });

  it('names a schema it cannot find', () => {
    expect(() => new SchemaComments([{ fileName: 'config.ts', text: source }]).of('missing')).toThrow(/No variable named missing/);
  });
});

describe('composeInterpolations', () => {
  it('finds each .env variable with its default, whether it is required, and what it sets, through merge keys', () => {
    const compose = `
x-app: &app
  image: \${WEFT_APP_IMAGE:-weft/app:latest}
  environment: &env
    TOKEN: \${WEFT_TOKEN:?set WEFT_TOKEN}
services:
  api:
    <<: *app
    ports: ["\${WEFT_PORT:-8080}:8080"]
    environment:
      <<: *env
      DIR: \${WEFT_DIR-/var/lib/x}
`;
    expect(composeInterpolations(compose).map(({ variable, defaultValue, requiredMessage, service, target }) => ({ variable, defaultValue, requiredMessage, service, target }))).toEqual([
      { variable: 'WEFT_APP_IMAGE', defaultValue: 'weft/app:latest', requiredMessage: undefined, service: 'api', target: 'image' },
      { variable: 'WEFT_TOKEN', defaultValue: undefined, requiredMessage: 'set WEFT_TOKEN', service: 'api', target: 'environment.TOKEN' },
      { variable: 'WEFT_DIR', defaultValue: '/var/lib/x', requiredMessage: undefined, service: 'api', target: 'environment.DIR' },
      { variable: 'WEFT_PORT', defaultValue: '8080', requiredMessage: undefined, service: 'api', target: 'ports' },
    ]);
  });
});
