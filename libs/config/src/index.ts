export { ConfigError, loadConfig } from './load-config';
export { gatewayConfigSchema, inferenceConfigSchema, toolsConfigSchema } from './apps';
export type { GatewayConfig, InferenceConfig, ToolsConfig } from './apps';
export { SANDBOX_RUNTIMES, sandboxConfigSchema } from './sandbox';
export type { SandboxConfig } from './sandbox';
export { requestCostLimitsOf, requestLimitsEnv } from './request-limits';
