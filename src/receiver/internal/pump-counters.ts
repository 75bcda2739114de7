import type { ReceiverCounters, RestartReason } from '../receiver-status.ts';

/** Mutable counters shared by a receiver's pumps; read as a snapshot through `stats()`. */
export type PumpCounters = { -readonly [K in keyof ReceiverCounters]: number } & {
  restarts: Record<RestartReason, number>;
};

export function createPumpCounters(): PumpCounters {
  return {
    eventsReceived: 0,
    bytesReceived: 0,
    recordsDecoded: 0,
    eventsFailedDecode: 0,
    recordsAccepted: 0,
    recordsRefused: 0,
    metricPointsDecoded: 0,
    metricPointsAccepted: 0,
    metricPointsRefused: 0,
    spansDecoded: 0,
    spansAccepted: 0,
    spansRefused: 0,
    itemsWithoutPipeline: 0,
    eventsDeadLettered: 0,
    checkpointWrites: 0,
    checkpointFailures: 0,
    backendReconnects: 0,
    eventsLostToRetention: 0,
    eventsBackfilled: 0,
    eventsMissingFromCapture: 0,
    eventsDropped: 0,
    exportHolds: 0,
    invalidCheckpoints: 0,
    eventsDecodedOffThread: 0,
    eventsDecodeFallbacks: 0,
    claimPauses: 0,
    restarts: { transient: 0, permanent: 0, stalled: 0, ownershipLost: 0, fenced: 0, error: 0, startFailed: 0 },
  };
}
