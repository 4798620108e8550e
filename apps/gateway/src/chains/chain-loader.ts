import { AppError, ErrorCode, Routes } from '@weft/contracts';
import type { RpcClient } from '@weft/messaging';
import { CHAINS_DIR, type Chain, chainNameSchema, parseChain } from './chain-schema';

/** Chains of a workspace, read from its `.weft/chains/` folder. */
export interface ChainsPort {
  load(workspaceId: string, name: string): Promise<Chain>;
}

/** One chain file as a list shows it: what it asks for, or why it cannot run. */
export type ChainListing =
  | { name: string; description: string | null; inputs: Chain['inputs']; steps: number }
  | { name: string; error: string };

/** Reads chain files through the tools worker, which keeps the read inside the workspace. */
export class RpcChainLoader implements ChainsPort {
  constructor(
    private readonly rpc: RpcClient,
    private readonly knownTools: ReadonlySet<string>,
  ) {}

  /** Every `<name>.yaml` of the folder, sorted; a broken file is listed with its problems. */
  async list(workspaceId: string): Promise<ChainListing[]> {
    let names: string[];
    try {
      const folder = await this.rpc.request(Routes.toolsReadPath, { workspaceId, path: CHAINS_DIR });
      if (folder.kind !== 'directory') return [];
      names = folder.entries.flatMap((e) => (e.type === 'file' && e.name.endsWith('.yaml') ? [e.name.slice(0, -'.yaml'.length)] : []));
    } catch (error) {
      if (error instanceof AppError && error.code === ErrorCode.FileNotFound) return [];
      throw error;
    }
    return Promise.all(
      names.filter((name) => chainNameSchema.safeParse(name).success).map(async (name): Promise<ChainListing> => {
        try {
          const chain = await this.load(workspaceId, name);
          return { name, description: chain.description ?? null, inputs: chain.inputs, steps: chain.steps.length };
        } catch (error) {
          if (error instanceof AppError && error.code === ErrorCode.ChainInvalid) return { name, error: error.message };
          throw error;
        }
      }),
    );
  }

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
