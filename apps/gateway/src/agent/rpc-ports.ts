import type { ExecRequest, GenerateRequest, ToolCallRequest } from '@weft/contracts';
import { Routes } from '@weft/contracts';
import type { RpcClient } from '@weft/messaging';
import type { FileToolsPort, InferencePort, SandboxPort } from './ports';

/** The runner's ports over NATS, each with its own deadline. */
export function rpcInferencePort(rpc: RpcClient, timeoutMs: number): InferencePort {
  return { generate: (request: GenerateRequest) => rpc.stream(Routes.inferenceGenerate, request, { timeoutMs }) };
}

export function rpcFileToolsPort(rpc: RpcClient): FileToolsPort {
  return { call: (request: ToolCallRequest) => rpc.request(Routes.toolsCall, request) };
}

export function rpcSandboxPort(rpc: RpcClient, timeoutMs: number): SandboxPort {
  return { exec: (request: ExecRequest) => rpc.request(Routes.sandboxExec, request, { timeoutMs }) };
}
