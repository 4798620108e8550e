/**
 * What `weft` exits with, documented for scripts and CI (apps/cli/README.md): a turn's outcome
 * for `run` and `chain`, and the same codes for every command's failures.
 */
export const ExitCode = {
  /** The command did what it was asked; for `run`, the turn completed. */
  Done: 0,
  /** The turn failed or was cancelled by someone else, or the command failed (the gateway said no, the network). */
  Failed: 1,
  /** The command line was wrong: an unknown option, a missing argument, options that conflict. */
  Usage: 2,
  /** The agent asked a permission question that no rule, `--yes` or person answered. */
  ApprovalNeeded: 3,
  /** Ctrl-C cancelled the turn, or left it. */
  Interrupted: 130,
} as const;
