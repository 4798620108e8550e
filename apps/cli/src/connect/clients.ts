import { join } from 'node:path';
import { mergeEnvLines, mergeJson, mergeToml, objectAt, upsertYamlListItem, type JsonObject } from './config-formats';
import { anthropicBase, type ConnectTarget, geminiBase, openAiBase } from './connect-target';

/** Which of Weft's APIs a client speaks: also the one request that checks the written settings. */
export type ClientApi = 'anthropic' | 'chat' | 'responses' | 'gemini';

/** Where a client's user-level files live: HOME, and XDG_CONFIG_HOME (default `~/.config`). */
export interface Homes {
  readonly home: string;
  readonly configHome: string;
}

/** One file of a client's settings and how Weft's part is merged into it. */
export interface ConfigFile {
  readonly path: string;
  readonly format: 'json' | 'toml' | 'yaml' | 'dotenv' | 'shell';
  /** The file's next text: `current` (undefined when there is none) with Weft's settings merged in. */
  readonly merge: (current: string | undefined, target: ConnectTarget) => string;
}

export interface ConnectClient {
  readonly id: string;
  readonly name: string;
  readonly api: ClientApi;
  /** Where each setting goes, as docs/agent-clients.md's table says it (a test holds the two together). */
  readonly summary: string;
  /** How the client learns the context window, or why it does not. */
  readonly contextSetting: string;
  readonly files: (homes: Homes) => ConfigFile[];
  /** Said after the files are written: what else the user does (source a file, restart the client). */
  readonly next?: (files: readonly string[]) => string;
}

const PROVIDER_ID = 'weft';
/** Qwen Code reads a provider's key from the variable its entry names; its settings' `env` sets it. */
const QWEN_KEY_VARIABLE = 'WEFT_API_KEY';

/** opencode's and Kilo's shape (Kilo CLI is opencode's fork): the key written out, as Kilo ignores `{env:…}` in it. */
function opencodeConfig(current: string | undefined, t: ConnectTarget, path: string, schema?: string): string {
  return mergeJson(path, current, (config) => {
    if (schema) config.$schema ??= schema;
    const provider = objectAt(objectAt(config, 'provider'), PROVIDER_ID);
    provider.npm = '@ai-sdk/openai-compatible';
    provider.name = 'Weft';
    Object.assign(objectAt(provider, 'options'), { baseURL: openAiBase(t), apiKey: t.key });
    objectAt(provider, 'models')[t.model] = { name: `${t.model} (Weft)`, limit: { context: t.contextWindow, output: t.replyTokens } };
    config.model = `${PROVIDER_ID}/${t.model}`;
  });
}

/** Every client `weft connect` knows, in the order docs/agent-clients.md lists them. */
export const CONNECT_CLIENTS: readonly ConnectClient[] = [
  {
    id: 'claude',
    name: 'Claude Code',
    api: 'anthropic',
    summary: '`~/.claude/settings.json`, its `env`: `ANTHROPIC_BASE_URL`, `ANTHROPIC_AUTH_TOKEN`, `ANTHROPIC_MODEL`, `ANTHROPIC_DEFAULT_HAIKU_MODEL`, `ANTHROPIC_SMALL_FAST_MODEL`',
    contextSetting: '`CLAUDE_CODE_MAX_CONTEXT_TOKENS` and `CLAUDE_CODE_AUTO_COMPACT_WINDOW` = the window, `CLAUDE_CODE_MAX_OUTPUT_TOKENS` = the reply budget',
    files: ({ home }) => [
      {
        path: join(home, '.claude', 'settings.json'),
        format: 'json',
        merge: (current, t) =>
          mergeJson(join(home, '.claude', 'settings.json'), current, (config) => {
            Object.assign(objectAt(config, 'env'), {
              ANTHROPIC_BASE_URL: anthropicBase(t),
              ANTHROPIC_AUTH_TOKEN: t.key,
              ANTHROPIC_MODEL: t.model,
              ANTHROPIC_DEFAULT_HAIKU_MODEL: t.model,
              ANTHROPIC_SMALL_FAST_MODEL: t.model,
              CLAUDE_CODE_MAX_CONTEXT_TOKENS: String(t.contextWindow),
              CLAUDE_CODE_AUTO_COMPACT_WINDOW: String(t.contextWindow),
              CLAUDE_CODE_MAX_OUTPUT_TOKENS: String(t.replyTokens),
            });
          }),
      },
    ],
  },
  {
    id: 'codex',
    name: 'Codex CLI',
    api: 'responses',
    summary: '`~/.codex/config.toml`: `model`, `model_provider = "weft"`, `[model_providers.weft]` with `base_url`, `wire_api = "responses"`, `experimental_bearer_token`',
    contextSetting: '`model_context_window` = the window, `model_max_output_tokens` = the reply budget',
    files: ({ home }) => {
      const path = join(home, '.codex', 'config.toml');
      return [
        {
          path,
          format: 'toml',
          merge: (current, t) =>
            mergeToml(path, current, (config) => {
              Object.assign(config, { model: t.model, model_provider: PROVIDER_ID, model_context_window: t.contextWindow, model_max_output_tokens: t.replyTokens });
              objectAt(config, 'model_providers')[PROVIDER_ID] = { name: 'Weft', base_url: openAiBase(t), wire_api: 'responses', experimental_bearer_token: t.key };
            }),
        },
      ];
    },
  },
  {
    id: 'opencode',
    name: 'opencode',
    api: 'chat',
    summary: '`~/.config/opencode/opencode.json`: a provider `weft` (`@ai-sdk/openai-compatible`, `baseURL`, `apiKey`), `model = "weft/<model>"`',
    contextSetting: "the model's `limit.context` and `limit.output`",
    files: ({ configHome }) => {
      const path = join(configHome, 'opencode', 'opencode.json');
      return [{ path, format: 'json', merge: (current, t) => opencodeConfig(current, t, path, 'https://opencode.ai/config.json') }];
    },
  },
  {
    id: 'kilo',
    name: 'Kilo Code CLI',
    api: 'chat',
    summary: "`~/.config/kilo/kilo.json`: opencode's shape, the key written out (Kilo ignores a key given as `{env:…}`)",
    contextSetting: "the model's `limit.context` and `limit.output`",
    files: ({ configHome }) => {
      const path = join(configHome, 'kilo', 'kilo.json');
      return [{ path, format: 'json', merge: (current, t) => opencodeConfig(current, t, path) }];
    },
  },
  {
    id: 'qwen',
    name: 'Qwen Code',
    api: 'chat',
    summary: '`~/.qwen/settings.json`: a `modelProviders.openai` entry (`id`, `baseUrl`, `envKey: "WEFT_API_KEY"`), the key in `env`, `security.auth.selectedType: "openai"`, `model.name`',
    contextSetting: "the entry's `generationConfig.contextWindowSize`",
    files: ({ home }) => {
      const path = join(home, '.qwen', 'settings.json');
      return [
        {
          path,
          format: 'json',
          merge: (current, t) =>
            mergeJson(path, current, (config) => {
              const providers = objectAt(config, 'modelProviders');
              const others = Array.isArray(providers.openai) ? (providers.openai as unknown[]).filter((entry) => (entry as JsonObject | null)?.id !== t.model) : [];
              const entry = { id: t.model, name: `${t.model} (Weft)`, baseUrl: openAiBase(t), envKey: QWEN_KEY_VARIABLE, generationConfig: { contextWindowSize: t.contextWindow } };
              providers.openai = [...others, entry];
              objectAt(config, 'env')[QWEN_KEY_VARIABLE] = t.key;
              objectAt(objectAt(config, 'security'), 'auth').selectedType = 'openai';
              objectAt(config, 'model').name = t.model;
            }),
        },
      ];
    },
  },
  {
    id: 'gemini',
    name: 'Gemini CLI',
    api: 'gemini',
    summary: '`~/.gemini/.env`: `GOOGLE_GEMINI_BASE_URL`, `GEMINI_API_KEY`, `GEMINI_MODEL`',
    contextSetting: "none: Gemini CLI has no setting for it; the gateway's `prompt is too long` answer stands",
    files: ({ home }) => {
      const path = join(home, '.gemini', '.env');
      return [{ path, format: 'dotenv', merge: (current, t) => mergeEnvLines(current, { GOOGLE_GEMINI_BASE_URL: geminiBase(t), GEMINI_API_KEY: t.key, GEMINI_MODEL: t.model }, 'dotenv') }];
    },
  },
  {
    id: 'cline',
    name: 'Cline CLI',
    api: 'chat',
    summary: '`~/.cline/data/globalState.json` (provider `openai`, `openAiBaseUrl`, the model for plan and act modes) and `~/.cline/data/secrets.json` (`openAiApiKey`)',
    contextSetting: "`openAiModelInfo.contextWindow` and `maxTokens` of each mode's model",
    files: ({ home }) => {
      const state = join(home, '.cline', 'data', 'globalState.json');
      const secrets = join(home, '.cline', 'data', 'secrets.json');
      const modelInfo = (t: ConnectTarget): JsonObject => ({ contextWindow: t.contextWindow, maxTokens: t.replyTokens, supportsImages: false, supportsPromptCache: true });
      return [
        {
          path: state,
          format: 'json',
          merge: (current, t) =>
            mergeJson(state, current, (config) => {
              Object.assign(config, {
                openAiBaseUrl: openAiBase(t),
                actModeApiProvider: 'openai',
                planModeApiProvider: 'openai',
                actModeOpenAiModelId: t.model,
                planModeOpenAiModelId: t.model,
                actModeOpenAiModelInfo: modelInfo(t),
                planModeOpenAiModelInfo: modelInfo(t),
              });
            }),
        },
        { path: secrets, format: 'json', merge: (current, t) => mergeJson(secrets, current, (config) => void (config.openAiApiKey = t.key)) },
      ];
    },
  },
  {
    id: 'continue',
    name: 'Continue',
    api: 'chat',
    summary: '`~/.continue/config.yaml`: a `models` entry `Weft <model>` (`provider: openai`, `apiBase`, `apiKey`, `roles`)',
    contextSetting: '`defaultCompletionOptions.contextLength` and `maxTokens`',
    files: ({ home }) => {
      const path = join(home, '.continue', 'config.yaml');
      const header = { name: 'Local config', version: '1.0.0', schema: 'v1' };
      return [
        {
          path,
          format: 'yaml',
          merge: (current, t) =>
            upsertYamlListItem(
              path,
              current,
              'models',
              {
                name: `Weft ${t.model}`,
                provider: 'openai',
                model: t.model,
                apiBase: openAiBase(t),
                apiKey: t.key,
                roles: ['chat', 'edit', 'apply'],
                defaultCompletionOptions: { contextLength: t.contextWindow, maxTokens: t.replyTokens },
              },
              header,
            ),
        },
      ];
    },
  },
  {
    id: 'copilot',
    name: 'GitHub Copilot CLI (own key)',
    api: 'chat',
    summary: '`~/.config/weft/copilot.env` to source: `COPILOT_PROVIDER_BASE_URL`, `COPILOT_PROVIDER_TYPE=openai`, `COPILOT_PROVIDER_API_KEY`, `COPILOT_MODEL` (Copilot CLI reads its provider from the environment only)',
    contextSetting: 'none: Copilot CLI has no setting for it',
    files: ({ configHome }) => {
      const path = join(configHome, 'weft', 'copilot.env');
      const values = (t: ConnectTarget) => ({ COPILOT_PROVIDER_BASE_URL: openAiBase(t), COPILOT_PROVIDER_TYPE: 'openai', COPILOT_PROVIDER_API_KEY: t.key, COPILOT_MODEL: t.model });
      return [{ path, format: 'shell', merge: (current, t) => mergeEnvLines(current, values(t), 'export') }];
    },
    next: ([path]) => `Copilot CLI reads its provider from the environment: run \`. ${path}\` before \`copilot\` (or add that line to your shell's profile).`,
  },
];

export function connectClient(id: string): ConnectClient | undefined {
  return CONNECT_CLIENTS.find((client) => client.id === id);
}
