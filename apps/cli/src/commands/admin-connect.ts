import type { AdminClient } from '../admin-client';

/**
 * Opens the admin client from `weft admin`'s options when a subcommand runs. Its own module, so
 * that `admin.ts` (which adds the subcommands) and the subcommands do not import each other.
 */
export type AdminConnect = () => Promise<AdminClient>;
