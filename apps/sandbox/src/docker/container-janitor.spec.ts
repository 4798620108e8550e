import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { ContainerJanitor } from './container-janitor';
import type { ContainerRuntime } from './container-runtime';

function fakeRuntime(calls: string[], failSweep = false): Pick<ContainerRuntime, 'removeExpired' | 'removeOwn' | 'removePredecessors'> {
  return {
    removePredecessors: async () => {
      calls.push('removePredecessors');
      if (failSweep) throw new Error('engine down');
      return 1;
    },
    removeExpired: async () => {
      calls.push('removeExpired');
      if (failSweep) throw new Error('engine down');
      return 1;
    },
    removeOwn: async () => {
      calls.push('removeOwn');
    },
  };
}

describe('ContainerJanitor', () => {
  const logger = pino({ level: 'silent' });

  it('removes what a crashed predecessor left and sweeps expired containers at boot, and its own at shutdown', async () => {
    const calls: string[] = [];
    const janitor = new ContainerJanitor(fakeRuntime(calls), logger);
    await janitor.onApplicationBootstrap();
    await janitor.onApplicationShutdown();
    expect(calls).toEqual(['removePredecessors', 'removeExpired', 'removeOwn']);
  });

  it('still boots when the engine cannot be swept', async () => {
    const janitor = new ContainerJanitor(fakeRuntime([], true), logger);
    await expect(janitor.onApplicationBootstrap()).resolves.toBeUndefined();
    await janitor.onApplicationShutdown();
  });
});
