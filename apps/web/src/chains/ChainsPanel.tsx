import { type FormEvent, useEffect, useState } from 'react';
import type { ApiClient } from '../api/client';
import type { ChainListing } from '../api/schemas';
import { ErrorMessage } from '../components/ErrorMessage';

type Chain = Extract<ChainListing, { steps: number }>;
const isRunnable = (chain: ChainListing): chain is Chain => 'steps' in chain;

/**
 * The chains of the session's workspace (`.weft/chains/<name>.yaml`): pick one, fill in its
 * inputs (defaults shown), run it as a turn whose steps stream into the chat. A chain file that
 * does not parse is listed with its error.
 */
export function ChainsPanel({ api, sessionId, busy }: { api: ApiClient; sessionId: string; busy: boolean }) {
  const [chains, setChains] = useState<ChainListing[] | null>(null);
  const [chosen, setChosen] = useState<Chain | null>(null);
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [error, setError] = useState<unknown>(null);
  const [starting, setStarting] = useState(false);

  useEffect(() => {
    api.chains(sessionId).then(setChains, setError);
  }, [api, sessionId]);

  const choose = (chain: Chain) => {
    setChosen(chain);
    setInputs(Object.fromEntries(Object.entries(chain.inputs).map(([name, input]) => [name, input.default ?? ''])));
  };

  const run = async (event: FormEvent) => {
    event.preventDefault();
    if (!chosen) return;
    setStarting(true);
    setError(null);
    try {
      // An input left empty takes the chain's default, as `weft chain` does.
      const given = Object.fromEntries(Object.entries(inputs).filter(([, value]) => value !== ''));
      await api.runChain(sessionId, chosen.name, given);
      setChosen(null);
    } catch (err) {
      setError(err);
    } finally {
      setStarting(false);
    }
  };

  return (
    <section className="side-section" aria-label="Chains">
      <details open={chains !== null && chains.length > 0}>
        <summary>
          <h2>Chains {chains ? <span className="hint">({chains.length})</span> : null}</h2>
        </summary>
        {chains && chains.length === 0 ? <p className="hint">This workspace has no chains (.weft/chains/*.yaml).</p> : null}
        <ul className="chains">
          {chains?.map((chain) =>
            isRunnable(chain) ? (
              <li key={chain.name}>
                <button type="button" className="secondary small" onClick={() => choose(chain)} aria-pressed={chosen?.name === chain.name}>
                  {chain.name}
                </button>{' '}
                <span className="hint">
                  {chain.steps} steps{chain.description ? ` · ${chain.description}` : ''}
                </span>
              </li>
            ) : (
              <li key={chain.name} className="error">
                {chain.name}: {chain.error}
              </li>
            ),
          )}
        </ul>
        {chosen ? (
          <form className="stack" onSubmit={(event) => void run(event)} aria-label={`Run the chain ${chosen.name}`}>
            <h3>Run {chosen.name}</h3>
            {Object.entries(chosen.inputs).map(([name, input]) => (
              <div key={name} className="stack">
                <label htmlFor={`chain-input-${name}`}>{name}</label>
                <input
                  id={`chain-input-${name}`}
                  value={inputs[name] ?? ''}
                  placeholder={input.default}
                  aria-describedby={input.description ? `chain-input-${name}-hint` : undefined}
                  onChange={(event) => setInputs({ ...inputs, [name]: event.target.value })}
                />
                {input.description ? (
                  <p className="hint" id={`chain-input-${name}-hint`}>
                    {input.description}
                  </p>
                ) : null}
              </div>
            ))}
            <div className="row">
              <button type="submit" className="small" disabled={busy || starting}>
                {busy ? 'A turn is running' : 'Run chain'}
              </button>
              <button type="button" className="secondary small" onClick={() => setChosen(null)}>
                Close
              </button>
            </div>
          </form>
        ) : null}
        <ErrorMessage error={error} />
      </details>
    </section>
  );
}
