export const SANDBOX_CONFIG = Symbol('SandboxConfig');
export const LOGGER = Symbol('Logger');
