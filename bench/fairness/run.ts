/**
 * `npm run bench:fairness`: is the shared endpoint fair? On the compose stack (its own, project
 * `weft-bench` on port 18090, or a running one: BENCH_GATEWAY_URL and BENCH_ADMIN_TOKEN), user B
 * runs agent turns alone, then again while user A keeps BENCH_A_SESSIONS (16) agent sessions busy
 * for BENCH_SECONDS (60). It prints B's time to first token alone and under A's load side by
 * side, each user's share of the generated tokens, errors, and lost events (a turn whose live
 * stream differs from its stored log, or whose deltas do not add up to its message), and the
 * gateway's memory in the first and last minute of the load. The soak: BENCH_A_SESSIONS=50
 * BENCH_SECONDS=600. Not a test: figures only. Model: BENCH_MODEL (`tiny`, the generated GGUF; replies capped at
 * BENCH_REPLY_TOKENS, 32).
 *
 * A busy box: BENCH_BUSY_CORES=2 runs another process that keeps two cores spinning for the whole
 * run. Faults: BENCH_FAULTS=inference@200,redis@400 SIGKILLs the inference worker's process (its
 * restart policy brings it back, as after a crash) and `docker restart`s Redis, at those seconds
 * into the load; the report then says how each turn in flight ended and how long after the fault.
 * The clients ride faults out as careful ones do: 503s retried after Retry-After, broken streams
 * reopened from the last id, a second's pause after a failed turn.
 */
import { gatewayUrl, stackEnv, startStack, stopStack } from '../../e2e/support/stack';
import { BenchUser, clientRetries, type TurnReport } from './client';
import { GatewayMemory } from './gateway-memory';
import { busyCores, faultSchedule, faultReport, type Fault } from './faults';
import { percentile, table } from '../inference/stats';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 60);
const A_SESSIONS = Number(process.env.BENCH_A_SESSIONS ?? 16);
const B_ALONE_TURNS = Number(process.env.BENCH_B_TURNS ?? 8);
const MODEL = process.env.BENCH_MODEL ?? 'tiny';
const REPLY_TOKENS = process.env.BENCH_REPLY_TOKENS ?? '32';
const BUSY_CORES = Number(process.env.BENCH_BUSY_CORES ?? 0);
const PROMPT = 'Summarise what this repository does in one sentence.';

async function main(): Promise<void> {
  const stack = await openStack();
  try {
    const unlimited = { requestsPerMinute: 0, concurrentTurns: 0, tokensPerDay: 0 };
    const a = await BenchUser.create(stack.base, stack.adminToken, `bench-a-${Date.now()}`, unlimited);
    const b = await BenchUser.create(stack.base, stack.adminToken, `bench-b-${Date.now()}`, unlimited);
    // A fresh session for every turn (made before the clock starts): a conversation that grew
    // for minutes would measure the model's context, not the queue.
    await b.turn(await b.newSession(MODEL), 'warm up');
    const alone: TurnReport[] = [];
    for (let i = 0; i < B_ALONE_TURNS; i++) alone.push(await b.turn(await b.newSession(MODEL), PROMPT));

    console.log(`user A: ${A_SESSIONS} agents in a loop for ${SECONDS} s; user B: one agent, turn after turn`);
    const deadline = Date.now() + SECONDS * 1000;
    const loaded = { a: [] as TurnReport[], b: [] as TurnReport[] };
    let errors = 0;
    const loop = async (user: BenchUser, into: TurnReport[]) => {
      while (Date.now() < deadline) {
        try {
          const report = await user.turn(await user.newSession(MODEL), PROMPT);
          into.push(report);
          // A failed turn (a worker restarting) is not retried at once, as no person would.
          if (report.outcome !== 'turn.completed') await new Promise((r) => setTimeout(r, 1000));
        } catch (error) {
          errors++;
          console.error(String(error));
        }
      }
    };
    const memory = new GatewayMemory(stack.base, stack.adminToken);
    memory.start();
    const spinner = busyCores(BUSY_CORES);
    const faults: Fault[] = faultSchedule(process.env.BENCH_FAULTS ?? '');
    const loadStarted = Date.now();
    const faultsDone = Promise.all(faults.map((fault) => fault.run(loadStarted)));
    const aLoops = Array.from({ length: A_SESSIONS }, () => loop(a, loaded.a));
    // B starts once A's turns fill the worker's queue.
    await new Promise((r) => setTimeout(r, 3000));
    await Promise.all([...aLoops, loop(b, loaded.b), faultsDone]);
    spinner.stop();
    memory.stop();

    const failed = [...alone, ...loaded.a, ...loaded.b].filter((t) => t.outcome !== 'turn.completed').length;
    const lost = [...alone, ...loaded.a, ...loaded.b].reduce((sum, t) => sum + t.lostEvents, 0);
    const ttft = (turns: TurnReport[], p: number) => percentile(turns.map((t) => t.ttftMs).filter(Number.isFinite), p);
    const tokens = (turns: TurnReport[]) => turns.reduce((sum, t) => sum + t.completionTokens, 0);
    const total = tokens(loaded.a) + tokens(loaded.b);
    console.log(`\nTime to first token (ms), model ${MODEL}, replies up to ${REPLY_TOKENS} tokens`);
    console.log(
      table(
        ['', 'turns', 'TTFT p50 ms', 'p99', 'p50 vs alone'],
        [
          ['B alone', alone.length, ttft(alone, 50), ttft(alone, 99), '1.00x'],
          [`B with A's ${A_SESSIONS} agents`, loaded.b.length, ttft(loaded.b, 50), ttft(loaded.b, 99), `${(ttft(loaded.b, 50) / ttft(alone, 50)).toFixed(2)}x`],
          [`A's agents (for contrast)`, loaded.a.length, ttft(loaded.a, 50), ttft(loaded.a, 99), `${(ttft(loaded.a, 50) / ttft(alone, 50)).toFixed(2)}x`],
        ],
      ),
    );
    console.log(`\nUnder load: generated tokens A ${tokens(loaded.a)} (${share(tokens(loaded.a), total)}, ${loaded.a.length} turns), B ${tokens(loaded.b)} (${share(tokens(loaded.b), total)}, ${loaded.b.length} turns)`);
    console.log(`errors ${errors}, turns not completed ${failed}, lost events ${lost}`);
    console.log(`client retries: ${clientRetries.refused} requests answered 503 or refused and asked again, ${clientRetries.reconnects} streams reopened`);
    const all = [...alone, ...loaded.a, ...loaded.b];
    console.log(`longest turn ${(Math.max(...all.map((t) => t.endedAt - t.postedAt)) / 1000).toFixed(1)} s; ${BUSY_CORES} cores kept busy by another process`);
    for (const line of faultReport(faults, [...loaded.a, ...loaded.b])) console.log(line);
    console.log(memory.summary());
    const reasons = new Map<string, number>();
    for (const t of [...alone, ...loaded.a, ...loaded.b]) if (t.failure) reasons.set(t.failure, (reasons.get(t.failure) ?? 0) + 1);
    for (const [reason, count] of reasons) console.log(`  ${count} × ${reason}`);
    console.log(`(B has one turn at a time, A ${A_SESSIONS}: with fair order B's requests wait for the next free sequence, not behind A's queue, as A's own requests do)`);
  } finally {
    await stack.close();
  }
}

function share(part: number, total: number): string {
  return total === 0 ? '-' : `${((part / total) * 100).toFixed(1)} %`;
}

async function openStack(): Promise<{ base: string; adminToken: string; close: () => Promise<void> }> {
  if (process.env.BENCH_GATEWAY_URL && process.env.BENCH_ADMIN_TOKEN) {
    return { base: process.env.BENCH_GATEWAY_URL, adminToken: process.env.BENCH_ADMIN_TOKEN, close: async () => undefined };
  }
  // The npm script names a project and port of its own (WEFT_E2E_PROJECT, WEFT_E2E_PORT); compose reads this at `up`.
  process.env.WEFT_AGENT_MAX_REPLY_TOKENS = REPLY_TOKENS;
  console.log(`starting the compose stack ${stackEnv.COMPOSE_PROJECT_NAME} on ${gatewayUrl} (images from npm run images)...`);
  await startStack();
  // WEFT_E2E_KEEP=1, as for the e2e tier: the stack stays up afterwards, logs and all.
  const keep = process.env.WEFT_E2E_KEEP === '1';
  return { base: gatewayUrl, adminToken: stackEnv.WEFT_ADMIN_TOKEN, close: async () => (keep ? undefined : stopStack()) };
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
