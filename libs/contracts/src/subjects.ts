/**
 * NATS subjects: `weft.<service>.v1.<verb>`. Persisted in running fleets; never rename one, add a v2.
 */
export const InferenceSubjects = {
  generate: 'weft.inference.v1.generate',
  listModels: 'weft.inference.v1.list-models',
} as const;

export const ToolsSubjects = {
  call: 'weft.tools.v1.call',
  createWorkspace: 'weft.tools.v1.create-workspace',
  readPath: 'weft.tools.v1.read-path',
  exportWorkspace: 'weft.tools.v1.export-workspace',
} as const;

export const SandboxSubjects = {
  exec: 'weft.sandbox.v1.exec',
} as const;

/** Each service listens in a queue group named after itself so replicas share the load. */
export const QueueGroups = {
  inference: 'inference',
  tools: 'tools',
  sandbox: 'sandbox',
} as const;
