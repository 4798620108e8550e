import { describe, expect, it } from 'vitest';
import { MarkdownStream, terminalMarkdown } from './markdown';

/** Marks each rendered piece, so a test sees where the stream cut the text. */
const stream = () => new MarkdownStream((markdown) => `[${markdown}]`);

describe('MarkdownStream', () => {
  it('renders a block once a blank line ends it, and holds the rest', () => {
    const md = stream();
    expect(md.push('Hello')).toBe('');
    expect(md.push(' world\n\nNext')).toBe('[Hello world\n\n]');
    expect(md.flush()).toBe('[Next]');
    expect(md.flush()).toBe('');
  });

  it('holds a table until it ends, so it is drawn whole', () => {
    const md = stream();
    expect(md.push('| a | b |\n| --- | --- |\n')).toBe('');
    expect(md.push('| 1 | 2 |\n\n')).toBe('[| a | b |\n| --- | --- |\n| 1 | 2 |\n\n]');
  });

  it('does not cut a code fence at a blank line inside it', () => {
    const md = stream();
    expect(md.push('```py\nx = 1\n\ny = 2\n')).toBe('');
    expect(md.push('```\n\nafter')).toBe('[```py\nx = 1\n\ny = 2\n```\n\n]');
    expect(md.flush()).toBe('[after]');
  });
});

describe('terminalMarkdown', () => {
  it('draws a table and drops the fences of a code block, without colour when told so', () => {
    const text = terminalMarkdown(80, false)('| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```js\nlet x;\n```\n');
    expect(text).toContain('│ a │ b │');
    expect(text).toContain('let x;');
    expect(text).not.toContain('```');
    expect(text).not.toContain('\u001b[');
  });

  it('renders inline code and bold inside list items, tight or loose', () => {
    const render = terminalMarkdown(80, false);
    const tight = render('Steps:\n\n- run `npm test` now\n- and **bold** here\n');
    expect(tight).toContain('* run npm test now');
    expect(tight).toContain('* and bold here');
    expect(render('1. first `a`\n\n2. second **b**\n')).not.toMatch(/[`*]{1,2}[ab]/);
  });
});
