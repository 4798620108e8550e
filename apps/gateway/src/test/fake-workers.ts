import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  AppError,
  ErrorCode,
  type GenerateChunk,
  type GenerateRequest,
  type ReadPathResult,
  Routes,
  type ToolCallRequest,
} from '@weft/contracts';
import { Observable } from 'rxjs';

/**
 * In-test stand-ins for the inference and tools workers (they are not under test here): the
 * model reads README.md once, then answers. `gate` holds a generation until the test opens it.
 */
export const fakeWorld = {
  gate: Promise.resolve() as Promise<void>,
  toolCalls: [] as ToolCallRequest[],
  generateRequests: [] as GenerateRequest[],
};

export function closeGate(): () => void {
  let open!: () => void;
  fakeWorld.gate = new Promise<void>((resolve) => (open = resolve));
  return open;
}

function script(request: GenerateRequest): { deltas: string[]; call?: { path: string } } {
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { deltas: ['The README ', 'says hello.'] };
  return { deltas: ['Reading the README.'], call: { path: 'README.md' } };
}

export const FAKE_PATCH = 'diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1 @@\n-hello\n+hello, world\n';
export const FAKE_WORKSPACE_BYTES = 100;

@Controller()
class FakeWorkersController {
  @MessagePattern(Routes.inferenceListModels.subject)
  listModels() {
    return { models: [{ id: 'tiny', provider: 'scripted', contextSize: 4096 }] };
  }

  @MessagePattern(Routes.inferenceGenerate.subject)
  generate(@Payload() request: GenerateRequest): Observable<GenerateChunk> {
    fakeWorld.generateRequests.push(request);
    return new Observable<GenerateChunk>((subscriber) => {
      void fakeWorld.gate.then(() => {
        const { deltas, call } = script(request);
        for (const text of deltas) subscriber.next({ type: 'delta', text });
        const toolCalls = call ? [{ id: `call_${fakeWorld.generateRequests.length}`, name: 'read_file', arguments: call }] : [];
        subscriber.next({
          type: 'done',
          result: {
            text: deltas.join(''),
            toolCalls,
            finishReason: call ? 'tool_calls' : 'stop',
            usage: { promptTokens: 7, completionTokens: 3 },
            timings: { totalMs: 1 },
          },
        });
        subscriber.complete();
      });
    });
  }

  @MessagePattern(Routes.toolsCall.subject)
  call(@Payload() request: ToolCallRequest) {
    fakeWorld.toolCalls.push(request);
    return { isError: false, output: '# Demo\nhello' };
  }

  @MessagePattern(Routes.toolsCreateWorkspace.subject)
  createWorkspace(@Payload() request: { archiveBase64?: string; maxBytes?: number }) {
    const size = request.archiveBase64 ? Buffer.from(request.archiveBase64, 'base64').length : 0;
    if (request.maxBytes !== undefined && size > request.maxBytes) {
      throw new AppError(ErrorCode.PayloadTooLarge, `The archive unpacks to ${size} bytes; your workspace quota has ${request.maxBytes} bytes left`);
    }
    if (request.archiveBase64 && Buffer.from(request.archiveBase64, 'base64').toString().includes('evil')) {
      throw new AppError(ErrorCode.ArchiveRejected, 'Entry ../evil.txt leaves the workspace', { entry: '../evil.txt' });
    }
    return { files: request.archiveBase64 ? 1 : 0, bytes: 0 };
  }

  @MessagePattern(Routes.toolsReadPath.subject)
  readPath(@Payload() request: { path: string }): ReadPathResult {
    if (request.path === '.') return { kind: 'directory', entries: [{ name: 'README.md', type: 'file', size: 5 }] };
    if (request.path === 'README.md') return { kind: 'file', size: 5, contentBase64: Buffer.from('hello').toString('base64') };
    throw new AppError(ErrorCode.FileNotFound, `No such file: ${request.path}`);
  }

  @MessagePattern(Routes.toolsExportPatch.subject)
  exportPatch() {
    return { patch: FAKE_PATCH, files: 1, omitted: [] };
  }

  /** Every workspace holds FAKE_WORKSPACE_BYTES. */
  @MessagePattern(Routes.toolsWorkspaceUsage.subject)
  usage(@Payload() request: { workspaceIds: string[] }) {
    return { workspaces: request.workspaceIds.map((workspaceId) => ({ workspaceId, files: 1, bytes: FAKE_WORKSPACE_BYTES })) };
  }

  @MessagePattern(Routes.toolsExportWorkspace.subject)
  exportWorkspace() {
    return { archiveBase64: Buffer.from([0x1f, 0x8b, 0x08]).toString('base64') };
  }
}

@Module({ controllers: [FakeWorkersController] })
export class FakeWorkersModule {}
