import { Injectable } from '@nestjs/common';
import type { ExecRequest } from '@weft/contracts';
import { QuotaService } from '../accounting/quota.service';
import { UsageService } from '../accounting/usage.service';
import { UserLimitsRepository } from '../accounting/user-limits';

/** Where a stdio server runs and for how long a request to it may take. */
export interface StdioRun {
  ownerId: string;
  workspaceId: string;
  sessionId: string;
  server: string;
  timeoutMs: number;
}

/**
 * Sandbox time of a session's stdio MCP servers, counted like its commands': a server runs in the
 * session's container, so listing its tools (which starts it) and each call reserve their timeout
 * against the owner's sandbox seconds for the day before they go (refused when that does not fit),
 * and their wall-clock time replaces the reservation when they end, failed ones too. Remote
 * servers use no sandbox and are not counted here.
 */
@Injectable()
export class McpSandboxMeter {
  constructor(
    private readonly limits: UserLimitsRepository,
    private readonly quotas: QuotaService,
    private readonly usage: UsageService,
  ) {}

  async run<T>(target: StdioRun, work: () => Promise<T>): Promise<T> {
    const { sandboxSecondsPerDay } = await this.limits.effective(target.ownerId);
    const reservation = await this.quotas.reserveSandboxRun(target.ownerId, sandboxSecondsPerDay, asCommand(target));
    const started = Date.now();
    try {
      return await work();
    } finally {
      await this.usage.recordSandboxRun(target.ownerId, Date.now() - started, reservation);
    }
  }
}

/** The reservation a command with the same timeout gets (the quota's bounds are defined on commands). */
function asCommand(target: StdioRun): ExecRequest {
  return {
    mode: 'command',
    workspaceId: target.workspaceId,
    command: `mcp ${target.server}`,
    writable: false,
    network: 'none',
    timeoutMs: target.timeoutMs,
    session: { sessionId: target.sessionId, ownerId: target.ownerId },
  };
}
