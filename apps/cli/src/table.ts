import type { Colors } from './render';

export interface Column {
  readonly header: string;
  /** Numbers read best right-aligned. */
  readonly align?: 'left' | 'right';
}

/** The header and each row as one line, columns padded to their widest cell, two spaces apart. */
export function formatTable(columns: readonly Column[], rows: readonly (readonly string[])[]): string[] {
  const widths = columns.map((column, i) => Math.max(column.header.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) =>
    columns
      .map((column, i) => {
        const cell = cells[i] ?? '';
        return column.align === 'right' ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0);
      })
      .join('  ')
      .trimEnd();
  return [line(columns.map((column) => column.header)), ...rows.map(line)];
}

/** The table as text to write: the header dimmed, a newline after every line. */
export function tableText(columns: readonly Column[], rows: readonly (readonly string[])[], c: Colors): string {
  const [header = '', ...lines] = formatTable(columns, rows);
  return [c.dim(header), ...lines].map((line) => `${line}\n`).join('');
}
