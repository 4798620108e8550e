export { ConfigError, loadConfig } from './load-config';
export {
  gatewayConfigSchema,
  inferenceConfigSchema,
  sandboxConfigSchema,
  toolsConfigSchema,
} from './apps';
export type { GatewayConfig, InferenceConfig, SandboxConfig, ToolsConfig } from './apps';
