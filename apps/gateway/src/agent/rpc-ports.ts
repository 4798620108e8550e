import { randomUUID } from 'node:crypto';
import type { CancelRun, ExecRequest, GenerateChunk, GenerateRequest, ToolCallRequest } from '@weft/contracts';
import { Routes } from '@weft/contracts';
import type { RpcClient } from '@weft/messaging';
import type { FleetGenerateOptions, FleetInference } from '../fleet/fleet-inference.client';
import type { ServiceLiveness } from '../fleet/service-liveness';
import { abortable } from './abortable';
import { retryWhileBusy } from './busy-retry';
import type { ExecOptions, FileToolsPort, InferencePort, SandboxPort } from '../agent-core/ports';

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
  /** How long a generation keeps asking while no worker takes it: all busy, or none up (AGENT_INFERENCE_BUSY_WAIT_MS). */
  busyWaitMs = 0,
): InferencePort {
  return {
    async *generate(request: GenerateRequest, signal?: AbortSignal, onResumed?: FleetGenerateOptions['onResumed']): AsyncIterable<GenerateChunk> {
      const start = () => (fleet ? fleet.generate(request, { timeoutMs, signal, onResumed }) : rpc.stream(Routes.inferenceGenerate, request, { timeoutMs, signal }));
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

/** With `liveness`, a call fails with TOOLS.UNAVAILABLE once every tools worker that could run it died. */
export function rpcFileToolsPort(rpc: RpcClient, liveness?: ServiceLiveness): FileToolsPort {
  return {
    call: (request: ToolCallRequest) => {
      const call = rpc.request(Routes.toolsCall, request);
      return liveness ? liveness.guard('tools', call) : call;
    },
  };
}

/**
 * Short runs over request/reply. With `liveness`, a command fails with SANDBOX.UNAVAILABLE once
 * every sandbox worker that could run it died. A run given a signal carries a `runId`, and
 * aborting publishes `weft.sandbox.v1.cancel` for it, so the worker kills the command.
 */
export function rpcSandboxPort(
  rpc: RpcClient,
  timeoutMs: number,
  liveness?: ServiceLiveness,
  publishCancel?: (payload: CancelRun) => void,
): SandboxPort {
  return {
    async exec(request: ExecRequest, options?: ExecOptions) {
      const signal = publishCancel ? options?.signal : undefined;
      const runId = signal ? randomUUID() : undefined;
      const onAbort = () => publishCancel?.(Routes.sandboxCancel.request.parse({ runId }));
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        const call = rpc.request(Routes.sandboxExec, runId ? { ...request, runId } : request, { timeoutMs });
        return await (liveness ? liveness.guard('sandbox', call) : call);
      } finally {
        signal?.removeEventListener('abort', onAbort);
      }
    },
  };
}
