import { AppError, ErrorCode } from '@weft/contracts';
import { constantTimeEquals, hashApiKey } from './key-hash';

/** The bootstrap admin token in effect: WEFT_ADMIN_TOKEN, a rotated one (kept as its hash), or none. */
export type BootstrapState = { mode: 'env' } | { mode: 'rotated'; hash: string; changedAt: string } | { mode: 'off'; changedAt: string };

/**
 * `valid` when `token` is the bootstrap token in effect; `retired` when it is WEFT_ADMIN_TOKEN
 * after a rotation or turning off replaced it (worth a message of its own); else `no`.
 */
export function checkBootstrapToken(token: string, state: BootstrapState, envToken: string): 'valid' | 'retired' | 'no' {
  const isEnvToken = constantTimeEquals(token, envToken);
  switch (state.mode) {
    case 'env':
      return isEnvToken ? 'valid' : 'no';
    case 'rotated':
      if (constantTimeEquals(hashApiKey(token), state.hash)) return 'valid';
      return isEnvToken ? 'retired' : 'no';
    case 'off':
      return isEnvToken ? 'retired' : 'no';
  }
}

export function retiredTokenError(state: BootstrapState): AppError {
  const since = state.mode === 'env' ? '' : ` on ${state.changedAt}`;
  const what = state.mode === 'off' ? `The bootstrap admin token was turned off${since}` : `WEFT_ADMIN_TOKEN was replaced by a rotated bootstrap token${since}`;
  return new AppError(ErrorCode.Unauthorized, `${what}: use ${state.mode === 'off' ? '' : 'the rotated token or '}an admin user's API key`);
}

/** What an admin route needs to know of a key and its user. */
export interface AdminCandidate {
  prefix: string;
  expiresAt: string;
  userName: string;
  role: 'admin' | 'member';
  disabled: boolean;
}

/** Why a user's key may not call an admin route, or undefined when it may. */
export function adminKeyRefusal(candidate: AdminCandidate, now = Date.now()): AppError | undefined {
  if (candidate.expiresAt && Date.parse(candidate.expiresAt) <= now) {
    return new AppError(ErrorCode.Unauthorized, `API key ${candidate.prefix}… expired at ${candidate.expiresAt}; ask your admin for a new one`);
  }
  if (candidate.disabled) return new AppError(ErrorCode.Forbidden, `User ${candidate.userName} is disabled; ask your admin`);
  if (candidate.role !== 'admin') {
    return new AppError(
      ErrorCode.AdminRequired,
      `User ${candidate.userName} is a member, not an admin: admin routes take an admin user's key or the bootstrap token`,
      { role: candidate.role },
    );
  }
  return undefined;
}
