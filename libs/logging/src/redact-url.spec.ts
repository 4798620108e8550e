import { describe, expect, it } from 'vitest';
import { REDACTED, redactUrl } from './redact-url';

describe('redactUrl', () => {
  it.each([
    ['/v1/me?api_key=weft_abc', `/v1/me?api_key=${REDACTED}`],
    ['/v1/me?key=s3cret&limit=5', `/v1/me?key=${REDACTED}&limit=5`],
    ['/v1/me?token=s3cret', `/v1/me?token=${REDACTED}`],
    ['/v1/me?access_token=s3cret', `/v1/me?access_token=${REDACTED}`],
    ['/v1/me?apiKey=s3cret', `/v1/me?apiKey=${REDACTED}`],
    ['/v1/me?X-Api-Key=s3cret', `/v1/me?X-Api-Key=${REDACTED}`],
    ['/v1/me?%61pi_key=s3cret', `/v1/me?%61pi_key=${REDACTED}`],
    ['/v1/me?password=hunter2', `/v1/me?password=${REDACTED}`],
  ])('hides the value of a parameter named like a credential: %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('hides a Weft API key under any name, or under none', () => {
    expect(redactUrl('/v1/me?q=weft_abc&weft_def')).toBe(`/v1/me?q=${REDACTED}&${REDACTED}`);
  });

  it('leaves other parameters, and URLs without a query, as they are', () => {
    expect(redactUrl('/v1/sessions/ses_1/events?after=1-0&name=my%20app')).toBe('/v1/sessions/ses_1/events?after=1-0&name=my%20app');
    expect(redactUrl('/v1/workspaces/ws_1/files/src/key.ts')).toBe('/v1/workspaces/ws_1/files/src/key.ts');
  });

  it('copes with malformed escapes', () => {
    expect(redactUrl('/x?token=%E0%A4%A&a=%zz')).toBe(`/x?token=${REDACTED}&a=%zz`);
  });
});
