// The e2e tier's OTLP receiver, run by Node in a container on the stack's network
// (docker-compose.e2e.yml): every service exports its spans here, and each span becomes one JSON
// line of /tmp/spans.jsonl (a tmpfs), which e2e/support/traces.ts reads. Node strips the module's types.
import { appendFileSync, writeFileSync } from 'node:fs';
import process from 'node:process';
import { startOtlpReceiver } from './otlp-receiver.ts';

const SPANS_FILE = '/tmp/spans.jsonl';
writeFileSync(SPANS_FILE, '');
await startOtlpReceiver({
  host: '0.0.0.0',
  port: 4318,
  onSpans: (spans) => appendFileSync(SPANS_FILE, spans.map((span) => `${JSON.stringify(span)}\n`).join('')),
});
writeFileSync('/tmp/otlp-ready', '');
// PID 1 of its container: without a handler, SIGTERM would be ignored until Docker kills it.
process.on('SIGTERM', () => process.exit(0));
process.stdout.write('OTLP receiver listening on 4318\n');
