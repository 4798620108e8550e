import { AppError, ErrorCode, Routes } from '@weft/contracts';
import type { RpcClient } from '@weft/messaging';
import { CHAINS_DIR, type Chain, parseChain } from './chain-schema';

/** Chains of a workspace, read from its `.weft/chains/` folder. */
export interface ChainsPort {
  load(workspaceId: string, name: string): Promise<Chain>;
}

/** Reads chain files through the tools worker, which keeps the read inside the workspace. */
export class RpcChainLoader implements ChainsPort {
  constructor(
    private readonly rpc: RpcClient,
    private readonly knownTools: ReadonlySet<string>,
  ) {}

  async load(workspaceId: string, name: string): Promise<Chain> {
    const path = `${CHAINS_DIR}/${name}.yaml`;
    let text: string;
    try {
      const result = await this.rpc.request(Routes.toolsReadPath, { workspaceId, path });
      if (result.kind !== 'file') throw notFound(name, path);
      text = Buffer.from(result.contentBase64, 'base64').toString('utf8');
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.FileNotFound) throw notFound(name, path);
      throw error;
    }
    return parseChain(name, text, this.knownTools);
  }
}

function notFound(name: string, path: string): AppError {
  return new AppError(ErrorCode.NotFound, `Chain "${name}" not found: the workspace has no ${path}`, { chain: name, path });
}
