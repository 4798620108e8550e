import { Controller, Module } from '@nestjs/common';
import { EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import {
  AppError,
  ErrorCode,
  type ExecRequest,
  type ExecResult,
  type GenerateChunk,
  type GenerateRequest,
  type ReadPathResult,
  Routes,
  type ToolCallRequest,
} from '@weft/contracts';
import { Observable } from 'rxjs';

/** One scripted model step: text, tool calls, or a generation that never ends until cancelled. */
export interface ScriptStep {
  text?: string;
  calls?: Array<{ name: string; arguments: Record<string, unknown> }>;
  hang?: boolean;
  promptTokens?: number;
  /** A slow model: `text` streamed as these deltas, `chunkDelayMs` apart (the result carries the whole text). */
  chunks?: string[];
  chunkDelayMs?: number;
}

/**
 * In-test stand-ins for the inference, tools and sandbox workers, driven per session: the gateway
 * is what is under test. Each session has a script of model steps; files live in a map per
 * workspace; every tool call, exec and cancel is recorded.
 */
export const scriptedWorld = {
  scripts: new Map<string, ScriptStep[]>(),
  files: new Map<string, string>(),
  generateRequests: [] as GenerateRequest[],
  toolCalls: [] as ToolCallRequest[],
  execs: [] as ExecRequest[],
  /** Request ids named on `weft.inference.v1.cancel`. */
  cancelled: [] as string[],
  /** Commands that block until their gate opens, by command text. */
  execGates: new Map<string, Promise<void>>(),
  execStarted: new Map<string, () => void>(),
};

export function script(sessionId: string, steps: ScriptStep[]): void {
  scriptedWorld.scripts.set(sessionId, [...steps]);
}

export function putFile(workspaceId: string, path: string, content: string): void {
  scriptedWorld.files.set(`${workspaceId}:${path}`, content);
}

/** Generations of the session, its delegated and subtask conversations (`<session>:<thread>`) included. */
export function requestsOf(sessionId: string): GenerateRequest[] {
  return scriptedWorld.generateRequests.filter((r) => r.sessionId === sessionId || r.sessionId?.startsWith(`${sessionId}:`));
}

let callCounter = 0;

@Controller()
class ScriptedModelController {
  @MessagePattern(Routes.inferenceListModels.subject)
  listModels() {
    return {
      models: [
        { id: 'tiny', provider: 'scripted', contextSize: 4096 },
        { id: 'senior', provider: 'scripted', contextSize: 4096, roles: ['senior'] },
        { id: 'junior', provider: 'scripted', contextSize: 4096, roles: ['junior'] },
      ],
    };
  }

  @MessagePattern(Routes.inferenceGenerate.subject)
  generate(@Payload() request: GenerateRequest): Observable<GenerateChunk> {
    scriptedWorld.generateRequests.push(request);
    // A delegated or subtask conversation (`<session>:<thread>`) takes the session's next steps.
    const steps = scriptedWorld.scripts.get((request.sessionId ?? '').split(':')[0] ?? '') ?? [];
    const step = steps.shift() ?? { text: 'done' };
    if (step.chunks) return slowly(step.chunks, step.chunkDelayMs ?? 0);
    return new Observable<GenerateChunk>((subscriber) => {
      const text = step.text ?? '';
      if (text !== '') subscriber.next({ type: 'delta', text });
      // A hung generation streams nothing more; only weft.inference.v1.cancel would stop a real one.
      if (step.hang) return undefined;
      const toolCalls = (step.calls ?? []).map((c) => ({ id: `call_${++callCounter}`, ...c }));
      subscriber.next({
        type: 'done',
        result: {
          text,
          toolCalls,
          finishReason: toolCalls.length > 0 ? 'tool_calls' : 'stop',
          usage: { promptTokens: step.promptTokens ?? 7, completionTokens: 3 },
          timings: { totalMs: 1 },
        },
      });
      subscriber.complete();
      return undefined;
    });
  }

  @EventPattern(Routes.inferenceCancel.subject)
  cancel(@Payload() payload: { requestId: string }) {
    scriptedWorld.cancelled.push(payload.requestId);
  }
}

/** Each chunk a delta, `delayMs` apart, then the whole text as the result. */
function slowly(chunks: string[], delayMs: number): Observable<GenerateChunk> {
  return new Observable<GenerateChunk>((subscriber) => {
    let index = 0;
    const timer = setInterval(() => {
      const chunk = chunks[index++];
      if (chunk !== undefined) return subscriber.next({ type: 'delta', text: chunk });
      clearInterval(timer);
      const result = { text: chunks.join(''), toolCalls: [], finishReason: 'stop' as const, usage: { promptTokens: 7, completionTokens: chunks.length }, timings: { totalMs: 1 } };
      subscriber.next({ type: 'done', result });
      subscriber.complete();
    }, delayMs);
    return () => clearInterval(timer);
  });
}

@Controller()
class ScriptedToolsController {
  @MessagePattern(Routes.toolsCall.subject)
  call(@Payload() request: ToolCallRequest) {
    scriptedWorld.toolCalls.push(request);
    const args = request.arguments as { path?: string; content?: string };
    if (request.tool === 'read_file') {
      const content = scriptedWorld.files.get(`${request.workspaceId}:${args.path}`);
      if (content === undefined) return { isError: true, output: `TOOLS.FILE_NOT_FOUND: No such file: ${args.path}` };
      return { isError: false, output: content };
    }
    if (request.tool === 'write_file') scriptedWorld.files.set(`${request.workspaceId}:${args.path}`, args.content ?? '');
    return { isError: false, output: `${request.tool} ok` };
  }

  @MessagePattern(Routes.toolsCreateWorkspace.subject)
  createWorkspace() {
    return { files: 0, bytes: 0 };
  }

  @MessagePattern(Routes.toolsWorkspaceUsage.subject)
  workspaceUsage(@Payload() request: { workspaceIds: string[] }) {
    const workspaces = request.workspaceIds.map((workspaceId) => {
      const files = [...scriptedWorld.files.entries()].filter(([key]) => key.startsWith(`${workspaceId}:`));
      return { workspaceId, files: files.length, bytes: files.reduce((sum, [, content]) => sum + Buffer.byteLength(content), 0) };
    });
    return { workspaces };
  }

  @MessagePattern(Routes.toolsDeleteWorkspace.subject)
  deleteWorkspace(@Payload() request: { workspaceId: string }) {
    for (const key of [...scriptedWorld.files.keys()]) if (key.startsWith(`${request.workspaceId}:`)) scriptedWorld.files.delete(key);
    return { removed: true };
  }

  @MessagePattern(Routes.toolsReadPath.subject)
  readPath(@Payload() request: { workspaceId: string; path: string }): ReadPathResult {
    const content = scriptedWorld.files.get(`${request.workspaceId}:${request.path}`);
    if (content !== undefined) return { kind: 'file', size: content.length, contentBase64: Buffer.from(content).toString('base64') };
    // A folder is every file stored under it; only the first level is listed.
    const prefix = `${request.workspaceId}:${request.path}/`;
    const names = [...scriptedWorld.files.keys()].filter((key) => key.startsWith(prefix)).map((key) => key.slice(prefix.length));
    if (names.length === 0) throw new AppError(ErrorCode.FileNotFound, `No such file: ${request.path}`);
    const entries = names.filter((name) => !name.includes('/')).sort().map((name) => ({ name, type: 'file' as const, size: 0 }));
    return { kind: 'directory', entries };
  }

  @MessagePattern(Routes.sandboxExec.subject)
  async exec(@Payload() request: ExecRequest): Promise<ExecResult> {
    scriptedWorld.execs.push(request);
    const command = request.mode === 'command' ? request.command : request.code;
    scriptedWorld.execStarted.get(command)?.();
    await scriptedWorld.execGates.get(command);
    return {
      exitCode: 0,
      stdout: `ran: ${command}\n`,
      stderr: '',
      stdoutTruncated: false,
      stderrTruncated: false,
      timedOut: false,
      oomKilled: false,
      // `sleep N` reports N seconds without sleeping: sandbox-time accounting has something to count.
      durationMs: /^sleep (\d+(?:\.\d+)?)$/.exec(command)?.[1] ? Number(/^sleep (\d+(?:\.\d+)?)$/.exec(command)?.[1]) * 1000 : 1,
    };
  }
}

@Module({ controllers: [ScriptedModelController, ScriptedToolsController] })
export class ScriptedWorkersModule {}

/** The scripted model alone, for tests that run the real tools worker beside it. */
@Module({ controllers: [ScriptedModelController] })
export class ScriptedModelModule {}
