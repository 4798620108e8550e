import type { GatewaySettings } from '../config';

/** `POST /v1/workspaces/:id/sync` carries its archive base64 in JSON, beside the removed paths. */
export const SYNC_BODY_PATH = '/v1/workspaces/:id/sync';

/** Room for an archive of WORKSPACE_UPLOAD_MAX_BYTES in base64, and for the removed paths. */
export function syncBodyLimit(config: Pick<GatewaySettings, 'WORKSPACE_UPLOAD_MAX_BYTES'>): number {
  return Math.ceil((config.WORKSPACE_UPLOAD_MAX_BYTES * 4) / 3) + 5 * 1024 * 1024;
}
