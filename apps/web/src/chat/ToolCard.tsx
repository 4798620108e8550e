import type { ApiClient } from '../api/client';
import { DiffView } from '../components/DiffView';
import { formatDuration } from '../time';
import type { ToolItem } from '../timeline/timeline';
import { PermissionPrompt } from './PermissionPrompt';
import { viewOf } from './tool-view';
import { useFileText } from './use-file-text';

const DECIDED_BY = { user: ' by you', policy: ' by a rule', timeout: ': nobody answered in time', cancel: ': the turn was cancelled' } as const;
const STATUS_TEXT = { asking: 'waiting for you', running: 'running', done: 'done', failed: 'failed', denied: 'denied' } as const;

/** One tool call: what it asked, the permission question if any, live output, and the result. */
export function ToolCard({ api, sessionId, workspaceId, tool }: { api: ApiClient; sessionId: string; workspaceId?: string; tool: ToolItem }) {
  // An edit not yet made is previewed in the file as it is, with its real line numbers.
  const fileText = useFileText(api, workspaceId, typeof tool.args.path === 'string' ? tool.args.path : '', tool.name === 'edit_file' && !tool.result);
  const view = viewOf(tool, fileText);
  const decision = tool.decision;
  const showDiff = view.diff && (tool.name === 'edit_file' || tool.name === 'write_file') && view.status !== 'denied';
  const isCommand = tool.name === 'run_command' || tool.name === 'execute_code';
  return (
    <article className={`tool tool-${view.status}`} aria-label={`Tool call ${tool.name}`} data-call-id={tool.callId} data-event-id={tool.eventId}>
      <header className="tool-head">
        <span className="tool-name">{tool.name}</span>
        {view.subject ? <code className="tool-subject">{view.subject}</code> : null}
        <span className={`badge ${view.status}`}>
          {STATUS_TEXT[view.status]}
          {view.exitCode !== null ? ` · exit ${view.exitCode}` : ''}
          {view.durationMs !== null && tool.result ? ` · ${formatDuration(view.durationMs)}` : ''}
        </span>
      </header>

      {tool.permission && !decision ? <PermissionPrompt api={api} sessionId={sessionId} tool={tool.name} ask={tool.permission} /> : null}
      {decision && (decision.decidedBy !== 'policy' || decision.decision === 'deny') ? (
        <p className={`decision ${decision.decision}`}>
          {decision.decision === 'allow' ? 'Allowed' : 'Denied'}
          {DECIDED_BY[decision.decidedBy]}
          {decision.rule ? ` (${decision.rule})` : ''}
          {decision.storedRules?.length ? ` · rule stored: ${decision.storedRules.join(', ')}` : ''}
          {decision.reason ? ` · ${decision.reason}` : ''}
        </p>
      ) : null}

      {showDiff ? <DiffView diff={view.diff!} label={`Changes to ${String(tool.args.path ?? '')}`} /> : null}
      {isCommand && tool.name === 'execute_code' ? <pre className="output">{String(tool.args.code ?? '')}</pre> : null}
      {tool.live && !tool.result ? (
        // Open while it runs; a person may fold a long run's output away and keep reading.
        <details className="result" open>
          <summary>Output so far ({tool.live.split('\n').length - 1} lines)</summary>
          <pre className="output live" aria-label={`Output of ${view.subject || tool.name}`} aria-live="off">
            {tool.live}
          </pre>
        </details>
      ) : null}
      {tool.live && tool.result && !tool.result.output.includes(tool.live.trim()) ? (
        // A run stopped (cancelled, killed): its result does not carry what it printed.
        <details className="result">
          <summary>Output before it stopped</summary>
          <pre className="output" aria-label={`Output of ${view.subject || tool.name}`}>
            {tool.live}
          </pre>
        </details>
      ) : null}
      {tool.result ? (
        <details className="result" open={isCommand || tool.result.isError}>
          <summary>{isCommand ? 'Output' : 'Result'}</summary>
          <pre className="output" aria-label={`Result of ${tool.name}`}>
            {tool.result.output}
          </pre>
        </details>
      ) : null}
      <details className="args">
        <summary>Arguments</summary>
        <pre className="output">{JSON.stringify(tool.args, null, 2)}</pre>
      </details>
    </article>
  );
}
