import { ErrorCode, type ToolDefinition } from '@weft/contracts';
import { describe, expect, it } from 'vitest';
import { toToolCalls } from './to-tool-calls';

const tools: ToolDefinition[] = [
  {
    name: 'write_file',
    description: 'Write a file',
    parameters: { type: 'object', properties: { path: { type: 'string', maxLength: 200 }, content: { type: 'string' }, mode: { type: 'integer' } }, required: ['path', 'content'] },
  },
];

describe('toToolCalls', () => {
  it('gives valid calls fresh ids and no error', () => {
    const [call] = toToolCalls([{ name: 'write_file', arguments: { path: 'a', content: 'b' } }], tools);
    expect(call).toEqual({ id: expect.stringMatching(/^call_[0-9a-f]{24}$/), name: 'write_file', arguments: { path: 'a', content: 'b' } });
  });

  it('keeps an invalid call with a typed argumentsError instead of dropping it', () => {
    const [bad, unknown, notObject] = toToolCalls(
      [
        { name: 'write_file', arguments: { path: 'a', content: 'b', mode: 1.5 } },
        { name: 'rm_rf', arguments: {} },
        { name: 'write_file', arguments: 'oops' },
      ],
      tools,
    );
    expect(bad?.argumentsError).toEqual({ code: ErrorCode.ToolArgumentsInvalid, message: expect.stringMatching(/\$\.mode: must be integer/) });
    expect(unknown?.argumentsError?.message).toMatch(/Unknown tool "rm_rf"/);
    expect(notObject).toMatchObject({ arguments: {}, argumentsError: { message: 'Arguments must be a JSON object' } });
  });

  it('flags a string that reached the grammar cap as probably cut short, unless the tool set that cap', () => {
    const [cut] = toToolCalls([{ name: 'write_file', arguments: { path: 'a', content: 'x'.repeat(64) } }], tools, 64);
    expect(cut?.argumentsError?.message).toMatch(/\$\.content: reached the 64-character cap/);
    const [short] = toToolCalls([{ name: 'write_file', arguments: { path: 'p'.repeat(200), content: 'x' } }], tools, 200);
    expect(short?.argumentsError).toBeUndefined();
  });
});
