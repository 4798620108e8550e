import { AppError, ErrorCode } from '@weft/contracts';
import { type AgentLoop, type LoopSpec, lastUserMessage } from '../agent-loop';
import type { ChainProgress, ThreadRef, TurnStore } from '../../agent-core/ports';
import type { AgentRole } from '../system-prompt';
import type { LoopOutcome, TurnContext } from '../../agent-core/turn-context';
import type { ChainsPort } from '../../chains/chain-loader';
import { render, renderArguments, resolveInputs } from '../../chains/chain-schema';

type SpecFor = (turn: TurnContext, thread: ThreadRef, role: AgentRole) => Promise<LoopSpec>;

/**
 * Runs a chain: its steps in order, in the session's conversation. A prompt step is a message
 * the model works on with its tools until it answers; a tool step is one call, checked by the
 * permission policy like the model's own. Each step's output feeds the templates of the later
 * ones; each step is logged as it starts and ends, and stored, so a rerun carries on after it.
 */
export class ChainRunner {
  constructor(
    private readonly loop: AgentLoop,
    private readonly store: TurnStore,
    private readonly chains: ChainsPort,
    private readonly specFor: SpecFor,
  ) {}

  async run(turn: TurnContext): Promise<LoopOutcome> {
    const invocation = turn.job.chain;
    if (!invocation) throw new AppError(ErrorCode.Internal, `Turn ${turn.turnId} is a chain turn without a chain`);
    const chain = await this.chains.load(turn.session.workspaceId, invocation.name);
    const inputs = resolveInputs(invocation.name, chain, invocation.inputs);
    const stored = await this.store.progress(turn.sessionId, turn.turnId);
    const progress: ChainProgress = stored?.kind === 'chain' ? stored : { kind: 'chain', outputs: [] };
    const outputs = new Map(progress.outputs.map((o) => [o.step, o.output]));
    const main = await this.specFor(turn, { sessionId: turn.sessionId }, 'agent');
    const total = chain.steps.length;
    let iterations = 0;
    for (let index = progress.outputs.length; index < total; index++) {
      const step = chain.steps[index];
      if (!step) break;
      const position = { turnId: turn.turnId, chain: invocation.name, step: step.name, index: index + 1, total };
      await turn.reportProgress({ phase: 'chain-step', index: index + 1, total, title: step.name });
      await turn.emit({ type: 'chain.step.started', ...position, kind: 'prompt' in step ? 'prompt' : 'tool' });
      let output: string;
      let isError = false;
      if ('prompt' in step) {
        await this.ask(main.thread, render(step.prompt, inputs, outputs));
        const outcome = await this.loop.run(turn, main);
        iterations += outcome.iterations;
        output = outcome.text;
      } else {
        const args = renderArguments(step.arguments, inputs, outputs) as Record<string, unknown>;
        const call = { id: `chain_${turn.turnId}_${index + 1}`, name: step.tool, arguments: args };
        ({ output, isError } = await this.loop.call(turn, main, call));
      }
      progress.outputs.push({ step: step.name, output, isError });
      outputs.set(step.name, output);
      await this.store.saveProgress(turn.sessionId, turn.turnId, progress);
      await turn.emit({ type: 'chain.step.completed', ...position, isError, output });
    }
    return { text: progress.outputs.at(-1)?.output ?? '', iterations };
  }

  /** The step's prompt as the user's message, once: a rerun finds it already there. */
  private async ask(thread: ThreadRef, prompt: string): Promise<void> {
    const history = await this.store.messages(thread);
    if (history[lastUserMessage(history)]?.content === prompt) return;
    await this.store.appendMessage(thread, { role: 'user', content: prompt });
  }
}
