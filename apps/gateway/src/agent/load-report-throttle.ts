/** The least progress between two `model.loading` events of one generation in the session log. */
const STEP = 0.1;

/**
 * Picks which of a worker's load reports (one every few seconds) go into the session's log:
 * the first, then one per tenth of the load, so a slow load does not fill the log with repeats.
 */
export class LoadReportThrottle {
  private told: number | undefined;

  worthTelling(progress: number): boolean {
    if (this.told !== undefined && progress - this.told < STEP) return false;
    this.told = progress;
    return true;
  }
}
