import { Controller, Module } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { AppError, type EmbedRequest, ErrorCode, Routes } from '@weft/contracts';
import { ScriptedWorkersModule } from './scripted-workers';

/** Empty, well-formed answers to the requests the scripted workers leave out. */
@Controller()
class StubWorkersController {
  @MessagePattern(Routes.inferenceEmbed.subject)
  embed(@Payload() request: EmbedRequest) {
    return { embeddings: request.input.map(() => [0]), promptTokens: request.input.length };
  }

  @MessagePattern(Routes.toolsExportWorkspace.subject)
  exportWorkspace() {
    return { archiveBase64: '' };
  }

  @MessagePattern(Routes.toolsExportPatch.subject)
  exportPatch() {
    return { patch: '', files: 0, omitted: [] };
  }

  @MessagePattern(Routes.toolsWorkspaceManifest.subject)
  workspaceManifest() {
    return { entries: [] };
  }

  @MessagePattern(Routes.toolsSyncWorkspace.subject)
  syncWorkspace() {
    return { written: 0, deleted: 0, overwritten: [], files: 0, bytes: 0 };
  }

  @MessagePattern(Routes.sandboxImages.subject)
  images() {
    return { default: 'default', images: [{ id: 'default', image: 'weft/sandbox-runtime:latest' }] };
  }

  @MessagePattern(Routes.sandboxReleaseSession.subject)
  releaseSession() {
    return { removed: 0 };
  }

  @MessagePattern(Routes.sandboxMcpListTools.subject)
  mcpListTools() {
    return { tools: [] };
  }

  @MessagePattern(Routes.inferenceModelsList.subject)
  modelsList() {
    return { models: [] };
  }

  @MessagePattern([Routes.inferenceModelsSet.subject, Routes.inferenceModelsRemove.subject])
  modelsChange(@Payload() request: { id: string }) {
    throw new AppError(ErrorCode.UnknownModel, `No pulled model "${request.id}"`, { model: request.id });
  }

  @MessagePattern(Routes.inferenceModelsPull.subject)
  modelsPull() {
    throw new AppError(ErrorCode.InvalidRequest, 'The stub workers pull no models');
  }
}

/**
 * The scripted workers, and a stub for every other request subject: a gateway test that may
 * reach any route (a fuzz test) never sees "no responders" for a request it made correctly.
 */
@Module({ imports: [ScriptedWorkersModule], controllers: [StubWorkersController] })
export class EveryWorkerModule {}
