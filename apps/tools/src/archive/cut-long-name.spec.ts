import { describe, expect, it } from 'vitest';
import { cutLongNameRejected, findCutLongName } from './cut-long-name';

describe('findCutLongName', () => {
  it('finds a NUL in a pax path or linkpath record', () => {
    expect(findCutLongName('28 path=good.txt\0../../evil\n')).toEqual({ field: 'path', value: 'good.txt\0../../evil' });
    expect(findCutLongName('11 mtime=0\n19 linkpath=a\0/etc\n')).toEqual({ field: 'linkpath', value: 'a\0/etc' });
  });

  it('finds a NUL inside a GNU long name, but not the NULs that end it', () => {
    expect(findCutLongName('long\0name\0')).toEqual({ field: 'long name', value: 'long\0name' });
    expect(findCutLongName('a/very/long/name\0\0\0')).toBeNull();
  });

  it('accepts pax records tar ignores, and binary values of other keys', () => {
    expect(findCutLongName('99 path=a\0b\n')).toBeNull(); // a wrong length: tar skips the record
    expect(findCutLongName('30 SCHILY.xattr.user.b=\0\x01\0\n13 path=a.txt\n')).toBeNull();
  });

  it('names the entry a cut link target belongs to, and the cut name itself otherwise, escaped', () => {
    expect(cutLongNameRejected({ field: 'linkpath', value: 'a\0b' }, 'link').message).toBe(
      "entry 'link' has a NUL byte in its link target; tar would silently cut the target there",
    );
    expect(cutLongNameRejected({ field: 'path', value: 'good.txt\0../../evil' }).message).toBe(
      "entry 'good.txt\\0../../evil' has a NUL byte in its name; tar would silently cut it there",
    );
  });
});
