import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, Routes } from '@weft/contracts';
import { RpcClient } from '@weft/messaging';
import type { InstructionsPort, InstructionsSummary } from '../agent-core/ports';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { UserInstructionsRepository } from './user-instructions.repository';

/** Looked for at the workspace root, in this order; the first one found is used. */
export const PROJECT_INSTRUCTION_FILES = ['AGENTS.md', 'WEFT.md'] as const;

/** Project instructions (read through the tools worker) and the user's personal ones, for one turn. */
@Injectable()
export class InstructionsLoader implements InstructionsPort {
  constructor(
    private readonly rpc: RpcClient,
    private readonly personal: UserInstructionsRepository,
    @Inject(GATEWAY_CONFIG) private readonly config: GatewaySettings,
  ) {}

  async load(session: { ownerId: string; workspaceId: string }): Promise<InstructionsSummary> {
    const [project, personal] = await Promise.all([this.project(session.workspaceId), this.personal.get(session.ownerId)]);
    return { project, personal: personal ? this.cap(personal.content) : null };
  }

  private async project(workspaceId: string): Promise<InstructionsSummary['project']> {
    for (const file of PROJECT_INSTRUCTION_FILES) {
      try {
        const result = await this.rpc.request(Routes.toolsReadPath, { workspaceId, path: file });
        if (result.kind !== 'file') continue;
        return { file, content: this.cap(Buffer.from(result.contentBase64, 'base64').toString('utf8')) };
      } catch (error) {
        if (error instanceof AppError && error.code === ErrorCode.FileNotFound) continue;
        throw error;
      }
    }
    return null;
  }

  private cap(text: string): string {
    const max = this.config.INSTRUCTIONS_MAX_CHARS;
    return text.length <= max ? text : `${text.slice(0, max)}\n[instructions truncated: ${text.length - max} more characters]`;
  }
}
