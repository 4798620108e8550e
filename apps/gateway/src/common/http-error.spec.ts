import { NotFoundException } from '@nestjs/common';
import { AppError, ErrorCode } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { statusForCode } from './error-status';
import { toHttpError } from './http-error';

describe('toHttpError', () => {
  it.each([
    [ErrorCode.ValidationFailed, 400],
    [ErrorCode.UnknownModel, 400],
    [ErrorCode.ArchiveRejected, 400],
    [ErrorCode.Unauthorized, 401],
    [ErrorCode.NotFound, 404],
    [ErrorCode.TurnInProgress, 409],
    [ErrorCode.Conflict, 409],
    [ErrorCode.PayloadTooLarge, 413],
    [ErrorCode.Timeout, 503],
    [ErrorCode.NoResponders, 503],
    [ErrorCode.SandboxUnavailable, 503],
  ])('maps %s to %i', (code, status) => {
    expect(statusForCode(code)).toBe(status);
    const mapped = toHttpError(new AppError(code, 'boom', { field: 'x' }));
    expect(mapped.status).toBe(status);
    expect(mapped.body).toEqual({ error: { code, message: 'boom', details: { field: 'x' } } });
  });

  it('hides an unexpected error behind an errorId that is also returned for the log', () => {
    const mapped = toHttpError(new Error('secret internals'));
    expect(mapped.status).toBe(500);
    expect(mapped.errorId).toMatch(/^err_/);
    expect(mapped.body.error.code).toBe(ErrorCode.Internal);
    expect(mapped.body.error.errorId).toBe(mapped.errorId);
    expect(JSON.stringify(mapped.body)).not.toContain('secret internals');
  });

  it('maps Nest HTTP exceptions by status', () => {
    const mapped = toHttpError(new NotFoundException('Cannot GET /nope'));
    expect(mapped).toMatchObject({ status: 404, body: { error: { code: ErrorCode.NotFound, message: 'Cannot GET /nope' } } });
  });

  it('maps a malformed JSON body to a 400', () => {
    const error = Object.assign(new SyntaxError('Unexpected token'), { type: 'entity.parse.failed', status: 400 });
    expect(toHttpError(error)).toMatchObject({ status: 400, body: { error: { code: ErrorCode.ValidationFailed } } });
  });

  it('maps a body over the limit to a 413 naming the limit', () => {
    const error = Object.assign(new Error('too large'), { type: 'entity.too.large', status: 413, limit: 1024 });
    const mapped = toHttpError(error);
    expect(mapped.status).toBe(413);
    expect(mapped.body.error.code).toBe(ErrorCode.PayloadTooLarge);
    expect(mapped.body.error.message).toContain('1024');
  });

  it('maps a body that does not inflate as its Content-Encoding says to a 400', () => {
    // What body-parser passes on: zlib's error, given a status by http-errors and no type.
    const error = Object.assign(new Error('incorrect header check'), { code: 'Z_DATA_ERROR', errno: -3, status: 400, statusCode: 400, expose: true });
    expect(toHttpError(error)).toEqual({
      status: 400,
      body: { error: { code: ErrorCode.ValidationFailed, message: 'Unreadable request body (it does not decode as its Content-Encoding says)' } },
    });
  });

  it("maps express's undecodable path parameter to a 400 naming it", () => {
    const error = Object.assign(new URIError("Failed to decode param '%'"), { status: 400 });
    expect(toHttpError(error)).toEqual({ status: 400, body: { error: { code: ErrorCode.ValidationFailed, message: "Failed to decode param '%'" } } });
    expect(toHttpError(new URIError('URI malformed')).status).toBe(500);
  });

  it('keeps an error that has only a status, and so is not body-parser\'s, internal', () => {
    expect(toHttpError(Object.assign(new Error('upstream said 404'), { status: 404 })).status).toBe(500);
  });
});
