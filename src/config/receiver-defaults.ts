/**
 * The `azure_event_hub` receiver's defaults and limits, in one place: the config schema
 * (receiver-config.ts) takes its defaults from here, the code that needs one imports it from here, and a
 * unit test checks that docs/configuration.md states the same values (test/unit/config/receiver-defaults.test.ts).
 * Durations are in milliseconds. The ownership defaults belong to the lease coordinator and are re-exported.
 */
export {
  DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_UPDATE_INTERVAL_MS,
  MAX_LEASE_DURATION_MS,
  MIN_LEASE_DURATION_MS,
} from '../ownership/lease-ownership-coordinator.ts';

export const DEFAULT_CONSUMER_GROUP = '$Default';
/** Checkpoint at most this often per partition (`checkpoint.interval`). */
export const DEFAULT_CHECKPOINT_INTERVAL_MS = 10_000;
/** `memory.check_interval`: time between memory measurements. */
export const DEFAULT_MEMORY_CHECK_INTERVAL_MS = 250;
/** `max_poll_events`: events per receive, and its ceiling. */
export const DEFAULT_MAX_POLL_EVENTS = 100;
export const MAX_MAX_POLL_EVENTS = 100_000;
/**
 * `max_batches_in_flight`: batches of one partition in the pipeline at once (handed over, not yet delivered),
 * and its ceiling. 2: the next batch is exported while the one before it still is (docs/configuration.md).
 */
export const DEFAULT_MAX_BATCHES_IN_FLIGHT = 2;
export const MAX_MAX_BATCHES_IN_FLIGHT = 16;
/** `poll_rate`: seconds a receive waits for its first event. */
export const DEFAULT_POLL_RATE_S = 5;
/** `shutdown_timeout`: the longest graceful stop. */
export const DEFAULT_SHUTDOWN_TIMEOUT_MS = 30_000;
/** `hub_lag_interval`: how often the hub-wide lag is read; 0 turns it off. */
export const DEFAULT_HUB_LAG_INTERVAL_MS = 30_000;
