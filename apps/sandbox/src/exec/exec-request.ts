import type { Routes } from '@weft/contracts';
import type { z } from 'zod';

/** An exec request after the contract's defaults have been applied. */
export type ParsedExecRequest = z.infer<(typeof Routes)['sandboxExec']['request']>;
