/**
 * The CLI's exit codes. Scripts and orchestrators act on them: 2 means "fix the config or the flags,
 * retrying will not help"; 1 a failure at run time; 130/143 a forced stop by a second signal (128 + the
 * signal number, the shell convention).
 */
export const EXIT_OK = 0;
/** A runtime failure: could not start, or a graceful shutdown did not finish in time. */
export const EXIT_RUNTIME_FAILURE = 1;
/** Bad flags or an invalid config: every problem was printed with its dotted path. */
export const EXIT_USAGE = 2;
/** `checkpoints reset` refused: partitions are owned by running instances (use --force after stopping them). */
export const EXIT_REFUSED = 3;
/** A second SIGINT forced the exit before the graceful shutdown finished. */
export const EXIT_FORCED_SIGINT = 130;
/** A second SIGTERM forced the exit before the graceful shutdown finished. */
export const EXIT_FORCED_SIGTERM = 143;
