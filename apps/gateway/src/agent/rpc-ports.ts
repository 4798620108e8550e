import type { ExecRequest, GenerateChunk, GenerateRequest, ToolCallRequest } from '@weft/contracts';
import { Routes } from '@weft/contracts';
import type { RpcClient } from '@weft/messaging';
import type { FleetInference } from '../fleet/fleet-inference.client';
import { abortable } from './abortable';
import { retryWhileBusy } from './busy-retry';
import type { FileToolsPort, InferencePort, SandboxPort } from './ports';

/**
 * Inference over NATS. Aborting a generation stops relaying its stream at once and publishes
 * `weft.inference.v1.cancel` for its request id, so the worker frees the sequence.
 */
export function rpcInferencePort(
  rpc: RpcClient,
  timeoutMs: number,
  publishCancel: (payload: { requestId: string }) => void,
  /** Routes by heartbeat and session affinity (the worker holding the KV cache); else the queue group. */
  fleet?: FleetInference,
  /** How long a generation keeps asking while every worker's queue is full (AGENT_INFERENCE_BUSY_WAIT_MS). */
  busyWaitMs = 0,
): InferencePort {
  return {
    async *generate(request: GenerateRequest, signal?: AbortSignal): AsyncIterable<GenerateChunk> {
      const start = () => (fleet ? fleet.generate(request, { timeoutMs, signal }) : rpc.stream(Routes.inferenceGenerate, request, { timeoutMs, signal }));
      const stream = retryWhileBusy(start, { waitMs: busyWaitMs, signal });
      const onAbort = () => {
        if (request.requestId) publishCancel(Routes.inferenceCancel.request.parse({ requestId: request.requestId }));
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        yield* abortable(stream, signal);
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}

export function rpcFileToolsPort(rpc: RpcClient): FileToolsPort {
  return { call: (request: ToolCallRequest) => rpc.request(Routes.toolsCall, request) };
}

export function rpcSandboxPort(rpc: RpcClient, timeoutMs: number): SandboxPort {
  return { exec: (request: ExecRequest) => rpc.request(Routes.sandboxExec, request, { timeoutMs }) };
}
