/**
 * The one door through which a test of one app starts another app in-process: the CLI's tests
 * need a real gateway (and tools, sandbox, inference workers), the gateway's a real sandbox.
 * Each harness lives in its own app, beside the internals it wires; an app's files may not import
 * another app's source (eslint.config.mjs), so they import these from here. Add a name here
 * rather than reaching across.
 */
export { type GatewayUnderTest, TEST_ADMIN_TOKEN, startGatewayUnderTest } from '../../apps/gateway/src/test/gateway-under-test';
export {
  ScriptedModelModule,
  type ScriptStep,
  ScriptedWorkersModule,
  requestsOf,
  script,
  scriptedWorld,
} from '../../apps/gateway/src/test/scripted-workers';
export { type SessionFixture, sessionApi } from '../../apps/gateway/src/test/session-api';
export { makeTempDir, makeTestModel, removeDir, startWorker } from '../../apps/inference/src/testing/worker-harness';
export { type SandboxHarness, startSandboxHarness } from '../../apps/sandbox/src/testing/sandbox-harness';
export { startToolsWorker } from '../../apps/tools/src/bootstrap';
