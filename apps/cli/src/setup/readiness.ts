import { z } from 'zod';
import { ProtocolError } from '../errors';
import { toTransportError, type FetchFn } from '../gateway-http';
import type { Readiness } from './setup-report';

/** `/readyz` answers at once or the gateway is in trouble. */
export const READINESS_TIMEOUT_MS = 10_000;

const readyzSchema = z.object({
  status: z.string(),
  checks: z.record(z.string(), z.string()).default({}),
  down: z.array(z.string()).default([]),
});

/**
 * `GET /readyz`, which takes no key: 200 when Redis and NATS answer, 503 naming the ones that do
 * not. Any other answer means the URL is not a Weft gateway; no answer is a ConnectionError.
 */
export async function probeReadiness(baseUrl: string, fetchFn: FetchFn = fetch): Promise<Readiness> {
  let response: Response;
  try {
    response = await fetchFn(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(READINESS_TIMEOUT_MS) });
  } catch (error) {
    throw toTransportError(baseUrl, error);
  }
  const body: unknown = await response.json().catch(() => undefined);
  const parsed = readyzSchema.safeParse(body);
  if ((response.status !== 200 && response.status !== 503) || !parsed.success) {
    throw new ProtocolError(`${baseUrl}/readyz answered ${response.status} ${response.statusText}: is this a Weft gateway?`);
  }
  return { ready: response.status === 200, checks: parsed.data.checks, down: parsed.data.down };
}
