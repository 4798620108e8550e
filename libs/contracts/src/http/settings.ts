import { z } from 'zod';
import { gitSourceSchema } from '../tools';

/** `GET /v1/settings`: what this server lets a client offer, so it shows only what will work. */
export const serverSettingsSchema = z.object({
  /** Hosts a workspace may be imported from with git; empty: import from git is off. */
  gitImportHosts: z.array(z.string()),
  /** The largest tar.gz `POST /v1/workspaces` takes. */
  workspaceUploadMaxBytes: z.number(),
});

/** `POST /v1/workspaces` as JSON: `{}` for an empty workspace, or a repository to clone. */
export const createWorkspaceJsonBodySchema = z.strictObject({ git: gitSourceSchema.optional() });
