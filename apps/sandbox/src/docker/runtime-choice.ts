import type { SandboxConfig } from '@weft/config';
import type { EngineInfo } from './container-runtime';

/** The OCI runtimes Weft runs sandbox containers on. */
export type OciRuntime = 'runsc' | 'runc';

/** The runtime settings, as the preflight and the choice read them. */
export type RuntimeSettings = Pick<SandboxConfig, 'SANDBOX_RUNTIME' | 'SANDBOX_IMAGE_RUNTIMES'>;

export interface RuntimeChoice {
  /** What containers run on unless their image names its own; absent: the engine's default (not reached at boot). */
  runtime?: OciRuntime;
  /** Whether the engine lists gVisor's runsc; absent when the engine was not reached. */
  gvisorListed?: boolean;
  /** Why, in words, for the start line: `SANDBOX_RUNTIME=auto and the engine lists runsc`. */
  reason: string;
}

/**
 * `auto` takes runsc where the engine lists it, else runc; a named runtime is taken as named (the
 * preflight has refused one the engine lacks). With no engine to ask, `auto` leaves the choice to
 * the engine's default runtime.
 */
export function chooseRuntime(settings: RuntimeSettings, info: EngineInfo | undefined): RuntimeChoice {
  const setting = settings.SANDBOX_RUNTIME;
  const gvisorListed = info?.runtimes.includes('runsc');
  if (setting !== 'auto') return { runtime: setting, gvisorListed, reason: `SANDBOX_RUNTIME=${setting}` };
  if (gvisorListed === undefined) return { reason: "SANDBOX_RUNTIME=auto, the engine was not reached: the engine's default runtime" };
  return gvisorListed
    ? { runtime: 'runsc', gvisorListed, reason: 'SANDBOX_RUNTIME=auto and the engine lists runsc' }
    : { runtime: 'runc', gvisorListed, reason: 'SANDBOX_RUNTIME=auto and the engine has no runsc (docs/sandbox.md: gVisor)' };
}

/** The worker's start line for the choice, naming the images that run on another runtime. */
export function describeChoice(choice: RuntimeChoice, imageRuntimes: Record<string, OciRuntime>): string {
  const name = choice.runtime === 'runsc' ? 'runsc (gVisor)' : (choice.runtime ?? "the engine's default");
  const own = Object.entries(imageRuntimes).map(([id, runtime]) => `${id} on ${runtime}`);
  return `sandbox containers run on ${name}: ${choice.reason}${own.length > 0 ? `; images of their own: ${own.join(', ')}` : ''}`;
}

/** The runtime of a container of `image`: its catalogue id's own, else the chosen one (`auto`: none, the engine's default). */
export function runtimeFor(
  config: Partial<Pick<SandboxConfig, 'SANDBOX_RUNTIME' | 'SANDBOX_IMAGE_RUNTIMES' | 'SANDBOX_IMAGES'>>,
  image: string,
): OciRuntime | undefined {
  const id = Object.entries(config.SANDBOX_IMAGES ?? {}).find(([, reference]) => reference === image)?.[0];
  const own = id === undefined ? undefined : config.SANDBOX_IMAGE_RUNTIMES?.[id];
  if (own) return own;
  return config.SANDBOX_RUNTIME === 'auto' ? undefined : config.SANDBOX_RUNTIME;
}
