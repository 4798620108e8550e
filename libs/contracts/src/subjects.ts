/**
 * NATS subjects: `weft.<service>.v1.<verb>`. Persisted in running fleets; never rename one, add a v2.
 */
export const InferenceSubjects = {
  generate: 'weft.inference.v1.generate',
  listModels: 'weft.inference.v1.list-models',
  /** Embeddings for models the registry declares with `embeddings: true`. */
  embed: 'weft.inference.v1.embed',
  /** Every worker listens (no queue group); the one running the request aborts it. */
  cancel: 'weft.inference.v1.cancel',
  /** Worker heartbeats, also `draining` and `stopped` goodbyes. */
  workerAnnounced: 'weft.inference.v1.worker.announced',
  /** The registry of pulled models (`weft admin models`): any one worker answers. */
  modelsPull: 'weft.inference.v1.models.pull',
  modelsList: 'weft.inference.v1.models.list',
  modelsSet: 'weft.inference.v1.models.set',
  modelsRemove: 'weft.inference.v1.models.remove',
  /** Every worker listens: one changed the pulled models' registry, all re-read it. */
  modelsChanged: 'weft.inference.v1.models.changed',
} as const;

/** One worker's own generate subject, for requests routed to the worker holding a session's cache. */
export function inferenceWorkerGenerateSubject(workerId: string): string {
  return `${InferenceSubjects.generate}.${workerId}`;
}

/**
 * One worker's liveness probe, answered by its heartbeat thread: asked by a gateway before it
 * drops a worker that went silent. A process that died has no subscription left, so the probe
 * gets "no responders" at once; a slow one answers late; a wedged one answers `wedged`.
 */
export function inferenceWorkerAliveSubject(workerId: string): string {
  return `weft.inference.v1.worker.alive.${workerId}`;
}

/** One worker's own embed subject: the gateway sends to a worker that serves the model. */
export function inferenceWorkerEmbedSubject(workerId: string): string {
  return `${InferenceSubjects.embed}.${workerId}`;
}

export const ToolsSubjects = {
  call: 'weft.tools.v1.call',
  createWorkspace: 'weft.tools.v1.create-workspace',
  readPath: 'weft.tools.v1.read-path',
  exportWorkspace: 'weft.tools.v1.export-workspace',
  exportPatch: 'weft.tools.v1.export-patch',
  workspaceUsage: 'weft.tools.v1.workspace-usage',
  deleteWorkspace: 'weft.tools.v1.delete-workspace',
  workspaceManifest: 'weft.tools.v1.workspace-manifest',
  syncWorkspace: 'weft.tools.v1.sync-workspace',
  /** Worker heartbeats (`serviceHeartbeatSchema`), seen by every gateway (no queue group). */
  workerAnnounced: 'weft.tools.v1.worker.announced',
} as const;

export const SandboxSubjects = {
  exec: 'weft.sandbox.v1.exec',
  /** Every sandbox worker listens (no queue group); the one running the long run kills it. */
  cancel: 'weft.sandbox.v1.cancel',
  images: 'weft.sandbox.v1.images',
  resolveImage: 'weft.sandbox.v1.resolve-image',
  releaseSession: 'weft.sandbox.v1.release-session',
  mcpListTools: 'weft.sandbox.v1.mcp-list-tools',
  mcpCallTool: 'weft.sandbox.v1.mcp-call-tool',
  mcpServerState: 'weft.sandbox.v1.mcp-server-state',
  /** Worker heartbeats (`serviceHeartbeatSchema`), seen by every gateway (no queue group). */
  workerAnnounced: 'weft.sandbox.v1.worker.announced',
} as const;

/** Where a long run's progress, output and outcome are published (`runOutputMessageSchema`). */
export function sandboxRunOutputSubject(runId: string): string {
  return `weft.sandbox.v1.run.${runId}.output`;
}

/** Each service listens in a queue group named after itself so replicas share the load. */
export const QueueGroups = {
  inference: 'inference',
  tools: 'tools',
  sandbox: 'sandbox',
} as const;
