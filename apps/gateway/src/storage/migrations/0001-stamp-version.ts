import type { Migration } from '../migration';

/**
 * Version 1 is the format as it was when versions began (Nov 2026): nothing to change, the runner
 * only stamps the version, so an unversioned store is read as version 0 and becomes 1.
 */
export const stampVersion: Migration = {
  version: 1,
  name: 'stamp-version',
  up: async () => undefined,
};
