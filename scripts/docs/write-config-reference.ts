import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { CONFIG_REFERENCE_PATH, REPO_ROOT, renderConfigReference } from './config-reference';

// `npm run docs:config`: regenerates docs/configuration.md from the config schemas and the compose file.
writeFileSync(CONFIG_REFERENCE_PATH, renderConfigReference());
console.log(`wrote ${relative(REPO_ROOT, CONFIG_REFERENCE_PATH)}`);
