// The e2e tier's OpenID provider, run by Node in a container of its own on the stack's network
// (e2e/support/oidc-provider.ts starts it): the integration tests' provider, listening on all
// interfaces under the issuer both the browser and the gateway reach. Node strips the module's types.
import process from 'node:process';
import { TEST_ACCOUNTS, startOidcTestProvider } from './oidc-test-provider.ts';

const { OIDC_ISSUER, OIDC_PORT, OIDC_REDIRECT_URI } = process.env;
if (!OIDC_ISSUER || !OIDC_PORT || !OIDC_REDIRECT_URI) throw new Error('set OIDC_ISSUER, OIDC_PORT and OIDC_REDIRECT_URI');
const provider = await startOidcTestProvider(TEST_ACCOUNTS, { host: '0.0.0.0', port: Number(OIDC_PORT), issuer: OIDC_ISSUER, control: true });
provider.registerClient(OIDC_REDIRECT_URI);
// PID 1 of its container: without a handler, SIGTERM would be ignored until Docker kills it.
process.on('SIGTERM', () => process.exit(0));
process.stdout.write(`test OpenID provider ${OIDC_ISSUER} listening on ${OIDC_PORT}\n`);
