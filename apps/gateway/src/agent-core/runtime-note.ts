/** Marks the runtime's own notes in the history, so they are never mistaken for the user's words. */
export const RUNTIME_NOTE_PREFIX = '[Weft runtime]';
