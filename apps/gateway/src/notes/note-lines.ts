import { MAX_NOTE_CHARS } from '@weft/contracts';

/**
 * Lines a model writes for later, as small agents taught their models to: `Remember: …`,
 * `Note for Junior: …`, `Note to senior: …`, `Note: …`, with or without list bullets or bold.
 */
const NOTE_LINE = /^\s*(?:[-*>]\s+)?(?:\*\*|__)?(remember|note(?:\s+(?:for|to)\s+(?:the\s+)?[a-z][\w-]*)?)\s*:(?:\*\*|__)?\s*(.+?)\s*$/i;

/** The notes in an answer, each with the label it was written under ("Note for Junior: x" keeps the label). */
export function noteLines(text: string): string[] {
  const notes: string[] = [];
  for (const line of text.split('\n')) {
    const match = NOTE_LINE.exec(line);
    if (!match?.[1] || !match[2]) continue;
    const label = match[1].replace(/\s+/g, ' ');
    const body = match[2].replace(/^(\*\*|__)|(\*\*|__)$/g, '').trim();
    if (body === '') continue;
    const note = /^remember$/i.test(label) || /^note$/i.test(label) ? body : `${capitalise(label)}: ${body}`;
    notes.push(note.slice(0, MAX_NOTE_CHARS));
  }
  return notes;
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
