/** Injection tokens of the agent's ports (`ports.ts`): the wiring module provides each on its own. */
export const TURN_STORE = Symbol('TURN_STORE');
export const INFERENCE_PORT = Symbol('INFERENCE_PORT');
export const FILE_TOOLS_PORT = Symbol('FILE_TOOLS_PORT');
export const SANDBOX_PORT = Symbol('SANDBOX_PORT');
/** The workers' tools offered to the model (`ReadonlyMap<string, AgentTool>`). */
export const AGENT_TOOLS = Symbol('AGENT_TOOLS');
export const PERMISSION_PORT = Symbol('PERMISSION_PORT');
export const INSTRUCTIONS_PORT = Symbol('INSTRUCTIONS_PORT');
export const CANCELLATION_PORT = Symbol('CANCELLATION_PORT');
export const NOTES_PORT = Symbol('NOTES_PORT');
export const CHAINS_PORT = Symbol('CHAINS_PORT');
export const MODEL_CONTEXT_PORT = Symbol('MODEL_CONTEXT_PORT');
export const WORKSPACE_QUOTA_PORT = Symbol('WORKSPACE_QUOTA_PORT');
export const TURN_ACCOUNTING_PORT = Symbol('TURN_ACCOUNTING_PORT');
export const MCP_TOOLS_PORT = Symbol('MCP_TOOLS_PORT');
/** The server's turn budgets (`TurnLimits`). */
export const TURN_LIMITS = Symbol('TURN_LIMITS');
