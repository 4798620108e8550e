import { ErrorCode } from '@weft/contracts';
import { ReplyError } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { STORE_REFUSAL_RETRY_AFTER_S, storeRefusal } from './store-refusal';

/** ioredis's own error class, as its replies carry it (typed `any` by ioredis). */
const reply = (message: string, previousErrors?: Error[]): Error => Object.assign(new (ReplyError as new (m: string) => Error)(message), previousErrors ? { previousErrors } : {});

describe('storeRefusal', () => {
  it('calls an OOM reply STORE.FULL and a MISCONF or READONLY reply STORE.READ_ONLY, retryable with Retry-After', () => {
    expect(storeRefusal(reply("OOM command not allowed when used memory > 'maxmemory'."))).toMatchObject({
      code: ErrorCode.StoreFull,
      retryable: true,
      details: { retryAfterSeconds: STORE_REFUSAL_RETRY_AFTER_S },
    });
    expect(storeRefusal(reply('MISCONF Errors writing to the AOF file: No space left on device'))?.code).toBe(ErrorCode.StoreReadOnly);
    expect(storeRefusal(reply("READONLY You can't write against a read only replica."))?.code).toBe(ErrorCode.StoreReadOnly);
  });

  it('finds the refusal behind a discarded transaction and inside a wrapping error', () => {
    const aborted = reply('EXECABORT Transaction discarded because of previous errors.', [reply('MISCONF Errors writing to the AOF file: No space left on device')]);
    expect(storeRefusal(aborted)?.code).toBe(ErrorCode.StoreReadOnly);
    expect(storeRefusal(new Error('could not store the message', { cause: reply('OOM command not allowed') }))?.code).toBe(ErrorCode.StoreFull);
  });

  it('leaves other errors alone, the same words outside a Redis reply included', () => {
    expect(storeRefusal(reply('ERR wrong number of arguments'))).toBeUndefined();
    expect(storeRefusal(reply('EXECABORT Transaction discarded because of previous errors.', [reply('WRONGTYPE Operation against a key')]))).toBeUndefined();
    expect(storeRefusal(new Error('OOM command not allowed'))).toBeUndefined();
    expect(storeRefusal('MISCONF')).toBeUndefined();
  });
});
