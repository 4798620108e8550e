import { describe, expect, it } from 'vitest';
import { chooseRuntime, describeChoice, runtimeFor } from './runtime-choice';

const withRunsc = { runtimes: ['runc', 'runsc'], securityOptions: ['name=seccomp,profile=default'] };
const runcOnly = { runtimes: ['io.containerd.runc.v2', 'runc'], securityOptions: ['name=seccomp,profile=default'] };

describe('chooseRuntime', () => {
  it('takes runsc under auto when the engine lists it, and runc when it does not', () => {
    expect(chooseRuntime({ SANDBOX_RUNTIME: 'auto', SANDBOX_IMAGE_RUNTIMES: {} }, withRunsc)).toMatchObject({ runtime: 'runsc', gvisorListed: true });
    expect(chooseRuntime({ SANDBOX_RUNTIME: 'auto', SANDBOX_IMAGE_RUNTIMES: {} }, runcOnly)).toMatchObject({ runtime: 'runc', gvisorListed: false });
  });

  it('takes a named runtime as named, and leaves auto to the engine when it was not reached', () => {
    expect(chooseRuntime({ SANDBOX_RUNTIME: 'runc', SANDBOX_IMAGE_RUNTIMES: {} }, withRunsc)).toMatchObject({ runtime: 'runc', reason: 'SANDBOX_RUNTIME=runc' });
    expect(chooseRuntime({ SANDBOX_RUNTIME: 'auto', SANDBOX_IMAGE_RUNTIMES: {} }, undefined).runtime).toBeUndefined();
  });

  it('says in the start line what runs where and why', () => {
    const choice = chooseRuntime({ SANDBOX_RUNTIME: 'auto', SANDBOX_IMAGE_RUNTIMES: {} }, withRunsc);
    expect(describeChoice(choice, { java: 'runc' })).toBe(
      'sandbox containers run on runsc (gVisor): SANDBOX_RUNTIME=auto and the engine lists runsc; images of their own: java on runc',
    );
  });
});

describe('runtimeFor', () => {
  const config = {
    SANDBOX_RUNTIME: 'runsc' as const,
    SANDBOX_IMAGES: { dev: 'weft/sandbox-dev:latest', java: 'weft/sandbox-java:latest' },
    SANDBOX_IMAGE_RUNTIMES: { java: 'runc' as const },
  };

  it("gives an image its catalogue id's own runtime, and every other the chosen one", () => {
    expect(runtimeFor(config, 'weft/sandbox-java:latest')).toBe('runc');
    expect(runtimeFor(config, 'weft/sandbox-dev:latest')).toBe('runsc');
    expect(runtimeFor(config, 'weft/sandbox-runtime:latest')).toBe('runsc');
  });

  it('names no runtime under an unsettled auto, so the engine uses its default', () => {
    expect(runtimeFor({ ...config, SANDBOX_RUNTIME: 'auto' }, 'weft/sandbox-dev:latest')).toBeUndefined();
  });
});
