import { Inject, Injectable } from '@nestjs/common';
import { AppError, ErrorCode, Routes } from '@weft/contracts';
import type { Logger } from '@weft/logging';
import { RpcClient } from '@weft/messaging';
import { z } from 'zod';
import { LOGGER } from '../infra/tokens';
import { type RuleSet, parseRule } from '@weft/contracts';
import { type PackageScripts, parsePackageScripts } from './shell/package-scripts';

/** The workspace's own settings file; a cloned repository may carry one. */
export const WORKSPACE_SETTINGS_PATH = '.weft/settings.json';

const settingsFileSchema = z.object({
  permissions: z
    .object({
      allow: z.array(z.string()).optional(),
      ask: z.array(z.string()).optional(),
      deny: z.array(z.string()).optional(),
    })
    .optional(),
});

export interface WorkspaceFileRules {
  rules: RuleSet;
  /** Rules the file could not add: every allow rule (a repository must not grant itself anything), and invalid ones. */
  ignored: string[];
}

/** Reads `.weft/settings.json` through the tools worker; only its deny and ask rules count. */
@Injectable()
export class WorkspaceSettingsReader {
  constructor(
    private readonly rpc: RpcClient,
    @Inject(LOGGER) private readonly logger: Logger,
  ) {}

  async read(workspaceId: string): Promise<WorkspaceFileRules> {
    const none: WorkspaceFileRules = { rules: { allow: [], ask: [], deny: [] }, ignored: [] };
    let text: string;
    try {
      const result = await this.rpc.request(Routes.toolsReadPath, { workspaceId, path: WORKSPACE_SETTINGS_PATH });
      if (result.kind !== 'file') return none;
      text = Buffer.from(result.contentBase64, 'base64').toString('utf8');
    } catch (error) {
      if (error instanceof AppError && (error.code === ErrorCode.FileNotFound || error.code === ErrorCode.NotAFile)) return none;
      throw error;
    }
    return fromText(text, (problem) => this.logger.warn({ workspaceId, problem }, `ignoring part of ${WORKSPACE_SETTINGS_PATH}`));
  }

  /** The scripts of the workspace's root `package.json`, read fresh: the agent may have just changed them. */
  async readPackageScripts(workspaceId: string): Promise<PackageScripts> {
    try {
      const result = await this.rpc.request(Routes.toolsReadPath, { workspaceId, path: 'package.json' });
      if (result.kind !== 'file') return { kind: 'none', why: 'package.json is not a file' };
      return parsePackageScripts(Buffer.from(result.contentBase64, 'base64').toString('utf8'));
    } catch (error) {
      if (error instanceof AppError && (error.code === ErrorCode.FileNotFound || error.code === ErrorCode.NotAFile)) {
        return { kind: 'none', why: 'there is no package.json' };
      }
      // Not knowing the script only means asking: a bound rule cannot match what was not read.
      this.logger.warn({ err: error, workspaceId }, 'could not read package.json for a permission check');
      return { kind: 'none', why: 'the tools worker did not answer' };
    }
  }
}

export function fromText(text: string, warn: (problem: string) => void = () => undefined): WorkspaceFileRules {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    warn('not valid JSON');
    return { rules: { allow: [], ask: [], deny: [] }, ignored: [] };
  }
  const parsed = settingsFileSchema.safeParse(json);
  if (!parsed.success) {
    warn(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '));
    return { rules: { allow: [], ask: [], deny: [] }, ignored: [] };
  }
  const permissions = parsed.data.permissions ?? {};
  const valid = (list: string[] = []) => list.filter((rule) => typeof parseRule(rule) !== 'string');
  const invalid = [...(permissions.ask ?? []), ...(permissions.deny ?? [])].filter((rule) => typeof parseRule(rule) === 'string');
  if (invalid.length > 0) warn(`invalid rules: ${invalid.join(', ')}`);
  return {
    rules: { allow: [], ask: valid(permissions.ask), deny: valid(permissions.deny) },
    ignored: [...(permissions.allow ?? []), ...invalid],
  };
}
