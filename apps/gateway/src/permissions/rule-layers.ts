import { Inject, Injectable } from '@nestjs/common';
import { GATEWAY_CONFIG, type GatewaySettings } from '../config';
import { PermissionRulesRepository } from './permission-rules.repository';
import { type RuleLayer, type RuleSet, ruleSetSchema } from '@weft/contracts';
import { WorkspaceSettingsReader } from './workspace-settings.reader';

export interface RuleContext {
  ownerId: string;
  workspaceId: string;
  sessionId: string;
}

/** Gathers every scope's rules for one call: server (config, then admin API), user, workspace, its file, session. */
@Injectable()
export class RuleLayersSource {
  private readonly serverConfigRules: RuleSet;

  constructor(
    @Inject(GATEWAY_CONFIG) config: GatewaySettings,
    private readonly rules: PermissionRulesRepository,
    private readonly settings: WorkspaceSettingsReader,
  ) {
    const parsed = ruleSetSchema.safeParse(config.PERMISSIONS_SERVER_RULES);
    if (!parsed.success) {
      throw new Error(`PERMISSIONS_SERVER_RULES: ${parsed.error.issues.map((i) => i.message).join('; ')}`);
    }
    this.serverConfigRules = parsed.data;
  }

  /** The workspace file is read by the caller (once per turn) and passed in. */
  async layers(context: RuleContext, workspaceFile: RuleSet): Promise<RuleLayer[]> {
    const [server, user, workspace, session] = await Promise.all([
      this.rules.get({ scope: 'server' }),
      this.rules.get({ scope: 'user', id: context.ownerId }),
      this.rules.get({ scope: 'workspace', id: context.workspaceId }),
      this.rules.get({ scope: 'session', id: context.sessionId }),
    ]);
    return [
      { scope: 'server', rules: this.serverConfigRules },
      { scope: 'server', rules: server },
      { scope: 'user', rules: user },
      { scope: 'workspace', rules: workspace },
      { scope: 'workspace-file', rules: { allow: [], ask: workspaceFile.ask, deny: workspaceFile.deny } },
      { scope: 'session', rules: session },
    ];
  }

  serverConfig(): RuleSet {
    return this.serverConfigRules;
  }

  workspaceFile(workspaceId: string) {
    return this.settings.read(workspaceId);
  }

  packageScripts(workspaceId: string) {
    return this.settings.readPackageScripts(workspaceId);
  }
}
