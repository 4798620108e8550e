/** Cuts text to at most `maxBytes` of UTF-8 and says so where the model will see it. */
export function truncateOutput(output: string, maxBytes: number): string {
  const bytes = Buffer.from(output, 'utf8');
  if (bytes.length <= maxBytes) return output;
  let end = maxBytes;
  // Step back to a character boundary: continuation bytes look like 0b10xxxxxx.
  while (end > 0 && ((bytes[end] ?? 0) & 0xc0) === 0x80) end--;
  const kept = bytes.subarray(0, end).toString('utf8');
  return `${kept}\n\n[output truncated: showed ${end} of ${bytes.length} bytes]`;
}
