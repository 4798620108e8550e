#!/usr/bin/env node
// Writes a compose override that runs one inference worker per NVIDIA GPU:
//   node scripts/gpu/compose-gpus.mjs 4 > docker-compose.gpu.yml
//   docker compose -f docker-compose.yml -f docker-compose.gpu.yml up -d
// Each worker `inference-gpu<i>` gets GPU i alone, its own WORKER_ID, and the CUDA image
// (scripts/images/build-cuda.sh). The CPU `inference` service of the base file moves behind the
// profile `cpu-inference`, so it only starts when asked for.
//
// Isolation `device` (default): the NVIDIA runtime hands the container GPU i only
// (`device_ids: ["i"]`); inside, that GPU is CUDA device 0, so CUDA_VISIBLE_DEVICES is "0".
// Isolation `env`: every GPU is handed to every worker and CUDA_VISIBLE_DEVICES=i (in PCI bus
// order, the order nvidia-smi numbers them) picks one; for runtimes that cannot pass device ids.
import { pathToFileURL } from 'node:url';

export const DEFAULT_IMAGE = '${WEFT_INFERENCE_CUDA_IMAGE:-weft/inference-cuda:latest}';
export const ISOLATIONS = ['device', 'env'];
const MAX_GPUS = 64;

/** The override as a plain object: `services` only, one entry per GPU plus the CPU worker's profile. */
export function gpuOverride({ gpus, image = DEFAULT_IMAGE, isolation = 'device', firstGpu = 0 }) {
  if (!Number.isInteger(gpus) || gpus < 1 || gpus > MAX_GPUS) throw new Error(`GPU count must be an integer from 1 to ${MAX_GPUS}, got ${gpus}`);
  if (!Number.isInteger(firstGpu) || firstGpu < 0) throw new Error(`first GPU index must be a non-negative integer, got ${firstGpu}`);
  if (!ISOLATIONS.includes(isolation)) throw new Error(`isolation must be one of ${ISOLATIONS.join(', ')}, got ${isolation}`);
  const services = { inference: { profiles: ['cpu-inference'] } };
  for (let n = 0; n < gpus; n++) {
    const gpu = firstGpu + n;
    const device = isolation === 'device' ? { driver: 'nvidia', device_ids: [String(gpu)], capabilities: ['gpu'] } : { driver: 'nvidia', count: 'all', capabilities: ['gpu'] };
    services[`inference-gpu${gpu}`] = {
      image,
      command: ['node', '--max-semi-space-size=32', 'apps/inference/dist/main.js'],
      restart: 'unless-stopped',
      read_only: true,
      tmpfs: ['/tmp'],
      environment: {
        NATS_URL: 'nats://nats:4222',
        NATS_USER: 'inference',
        NATS_PASSWORD: '${WEFT_NATS_WORKER_PASSWORD:?set WEFT_NATS_WORKER_PASSWORD (npm run setup writes one into .env)}',
        KV_STATE_DIR: '${WEFT_KV_STATE_DIR-/var/lib/weft/kv-state}',
        KV_STATE_MAX_BYTES: '${WEFT_KV_STATE_MAX_BYTES:-4294967296}',
        LOG_LEVEL: '${WEFT_LOG_LEVEL:-info}',
        WORKER_ID: `gpu${gpu}`,
        CUDA_DEVICE_ORDER: 'PCI_BUS_ID',
        CUDA_VISIBLE_DEVICES: isolation === 'device' ? '0' : String(gpu),
        // The root file system is read-only: CUDA's JIT cache goes to the tmpfs.
        CUDA_CACHE_PATH: '/tmp/cuda-cache',
      },
      volumes: [
        'kv-state:/var/lib/weft/kv-state',
        '${WEFT_MODELS_SOURCE:-models}:/var/lib/weft/models:ro',
        '${WEFT_MODELS_CONFIG:-./config/models.json}:/etc/weft/models.json:ro',
        '${WEFT_SCRIPTS_DIR:-./config/scripts}:/etc/weft/scripts:ro',
      ],
      depends_on: { nats: { condition: 'service_healthy' } },
      healthcheck: { test: ['CMD', 'test', '-f', '/tmp/weft-ready'], interval: '5s', timeout: '3s', retries: 60 },
      deploy: { resources: { reservations: { devices: [device] } } },
    };
  }
  return { services };
}

/** YAML for the subset this file writes: maps, lists and scalars; strings always double-quoted. */
export function toYaml(value, indent = 0) {
  const pad = ' '.repeat(indent);
  const scalar = (v) => (typeof v === 'string' ? JSON.stringify(v) : String(v));
  const isNode = (v) => v !== null && typeof v === 'object';
  if (Array.isArray(value)) {
    if (value.every((v) => !isNode(v))) return `[${value.map(scalar).join(', ')}]`;
    return value.map((v) => `\n${pad}- ${isNode(v) ? toYaml(v, indent + 2).trimStart() : scalar(v)}`).join('');
  }
  if (isNode(value)) {
    return Object.entries(value)
      .map(([k, v]) => {
        if (!isNode(v) || (Array.isArray(v) && v.every((x) => !isNode(x)))) return `\n${pad}${k}: ${toYaml(v, indent + 2)}`;
        return `\n${pad}${k}:${Array.isArray(v) ? toYaml(v, indent + 2) : toYaml(v, indent + 2)}`;
      })
      .join('');
  }
  return scalar(value);
}

function parseArgs(argv) {
  const options = { gpus: Number.NaN, isolation: 'device', image: DEFAULT_IMAGE, firstGpu: 0, format: 'yaml' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`${arg} needs a value`);
      return v;
    };
    if (arg === '--isolation') options.isolation = value();
    else if (arg === '--image') options.image = value();
    else if (arg === '--first-gpu') options.firstGpu = Number(value());
    else if (arg === '--json') options.format = 'json';
    else if (arg === '-h' || arg === '--help') options.help = true;
    else if (/^\d+$/.test(arg)) options.gpus = Number(arg);
    else throw new Error(`unknown argument ${arg}`);
  }
  return options;
}

const USAGE = 'usage: compose-gpus.mjs <gpus> [--isolation device|env] [--image NAME] [--first-gpu I] [--json]';

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  try {
    const options = parseArgs(process.argv.slice(2));
    if (options.help) {
      console.log(USAGE);
    } else {
      const override = gpuOverride(options);
      if (options.format === 'json') console.log(JSON.stringify(override, null, 2));
      else
        process.stdout.write(
          `# Written by scripts/gpu/compose-gpus.mjs ${process.argv.slice(2).join(' ')}: one inference worker per GPU.\n` +
            `# docker compose -f docker-compose.yml -f <this file> up -d\n${toYaml(override).trimStart()}\n`,
        );
    }
  } catch (error) {
    console.error(`compose-gpus: ${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    process.exit(2);
  }
}
