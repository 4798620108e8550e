import { AppError, ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { toAppError } from './rpc-client';

describe('toAppError', () => {
  it('reads a request refused while the NATS connection is down as retryable NO_RESPONDERS, not an internal error', () => {
    const error = toAppError('Error: Connection lost. Trying to reconnect...', 'weft.tools.v1.call', 30_000);
    expect(error).toBeInstanceOf(AppError);
    // Marked, so a turn waiting for a worker to come up (agent/busy-retry.ts) fails at once instead.
    expect(error).toMatchObject({ code: ErrorCode.NoResponders, retryable: true, details: { subject: 'weft.tools.v1.call', natsUnreachable: true } });
    expect(error.message).toContain('NATS is unreachable');
  });

  it('keeps an unknown failure internal', () => {
    expect(toAppError(new Error('boom'), 'weft.tools.v1.call', 30_000)).toMatchObject({ code: ErrorCode.Internal, retryable: false });
  });
});
