import { join, resolve } from 'node:path';

const root = resolve(__dirname, '../..');

/**
 * Where the browser tests put their screenshots. The pictures in docs/screenshots are the docs'
 * own (user-guide.md, web.md and sso.md show them), so a run writes there only when asked,
 * `WEFT_UPDATE_SCREENSHOTS=1 npm run test:e2e`, and an ordinary run leaves the checkout as it
 * was: its screenshots go to .weft-test/screenshots (ignored by git), to look at afterwards.
 */
export const SCREENSHOTS = process.env.WEFT_UPDATE_SCREENSHOTS === '1' ? join(root, 'docs/screenshots') : join(root, '.weft-test/screenshots');
