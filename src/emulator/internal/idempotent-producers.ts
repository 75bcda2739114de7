/**
 * Service-side state of idempotent producers (the SDK's `enableIdempotentRetries`): a producer attaches
 * with the `com.microsoft:idempotent-producer` capability and link properties producer-id (long), epoch
 * (short) and sequence number (int), each possibly null for "assign one"; the attach reply carries the
 * values in force, and every transfer carries the same three as message annotations, the sequence number
 * being the batch's first event's. Facts from `@azure/event-hubs` 6.0.x (eventHubSender.ts
 * generateIdempotentLinkProperties, util/error.ts) and the SDK's idempotent-producer tests, which match
 * the refusal texts below by /Invalid range for idempotent producer state.../, /Received:0 Current:1/
 * and /old sequence/; the rest of those texts is ours.
 */
import rhea from 'rhea';
import { ARGUMENT_OUT_OF_RANGE } from './conditions.ts';

export const IDEMPOTENT_PRODUCER_CAPABILITY = 'com.microsoft:idempotent-producer';
export const PRODUCER_EPOCH = 'com.microsoft:producer-epoch';
export const PRODUCER_ID = 'com.microsoft:producer-id';
export const PRODUCER_SEQUENCE_NUMBER = 'com.microsoft:producer-sequence-number';
/** Conditions the SDK maps to ProducerDisconnectedError and SequenceOutOfOrderError (not retryable). */
export const PRODUCER_EPOCH_STOLEN = 'com.microsoft:producer-epoch-stolen';
export const OUT_OF_ORDER_SEQUENCE = 'com.microsoft:out-of-order-sequence';

const INVALID_RANGE =
  'Invalid range for idempotent producer state. ' + 'Producer Id, Epoch, and Sequence Number must be zero or positive.';
const ADMIT: ProducerAdmission = { ok: true, duplicate: false, commit: () => undefined };

const { types } = rhea as any;

export interface Refusal {
  condition: string;
  description: string;
}

export type ProducerAttach = { ok: true; properties: Record<string, unknown> } | { ok: false; error: Refusal };
/**
 * `duplicate`: the transfer repeats the producer's last accepted batch (a retry whose acknowledgement was
 * lost, e.g. to a disconnect): accept it without appending, so the retry neither fails nor duplicates.
 */
export type ProducerAdmission = { ok: true; duplicate: boolean; commit(): void } | { ok: false; error: Refusal };

interface ProducerState {
  epoch: number;
  /** The last sequence number this producer published to the partition (0 before the first). */
  lastSequenceNumber: number;
  /** The first sequence number of the last accepted batch, to recognise its retry. */
  lastBatchFirst?: number;
}

function optionalNumber(value: unknown): number | undefined {
  if (value === null || value === undefined) return undefined;
  const n = Number(value);
  return Number.isFinite(n) ? n : Number.NaN;
}

function epochStolen(producerId: number, received: number, current: number): Refusal {
  return {
    condition: PRODUCER_EPOCH_STOLEN,
    description:
      `Producer ${producerId} has a newer owner on this partition: its epoch is higher than the one ` +
      `this producer uses. Received:${received} Current:${current}`,
  };
}

/** Idempotent producers of one namespace: producer ids are namespace-wide, state is per partition. */
export class IdempotentProducers {
  private nextProducerId = 1;
  private readonly states = new Map<string, ProducerState>();

  /** Whether a producer link asked for idempotent publishing. */
  static requested(desiredCapabilities: unknown): boolean {
    const list = Array.isArray(desiredCapabilities) ? desiredCapabilities : [desiredCapabilities];
    return list.some((c) => String(c) === IDEMPOTENT_PRODUCER_CAPABILITY);
  }

  /**
   * A producer link attaches to a partition with the given link properties. The reply echoes what was
   * asked and fills what was left null; a lower sequence number than the one on record is echoed but not
   * adopted, so the producer's next send is refused as an old sequence (as the SDK's tests expect).
   */
  attach(hub: string, partitionId: string, properties: Record<string, unknown> | undefined): ProducerAttach {
    const epoch = optionalNumber(properties?.[PRODUCER_EPOCH]);
    const id = optionalNumber(properties?.[PRODUCER_ID]);
    const sequenceNumber = optionalNumber(properties?.[PRODUCER_SEQUENCE_NUMBER]);
    if ([epoch, id, sequenceNumber].some((v) => v !== undefined && !(v >= 0))) {
      return { ok: false, error: { condition: ARGUMENT_OUT_OF_RANGE, description: INVALID_RANGE } };
    }
    const producerId = id ?? this.nextProducerId++;
    if (producerId >= this.nextProducerId) this.nextProducerId = producerId + 1;
    const key = stateKey(hub, partitionId, producerId);
    let state = this.states.get(key);
    if (!state) {
      state = { epoch: epoch ?? 0, lastSequenceNumber: sequenceNumber ?? 0 };
      this.states.set(key, state);
    } else {
      if (epoch !== undefined && epoch < state.epoch) {
        return { ok: false, error: epochStolen(producerId, epoch, state.epoch) };
      }
      if (epoch !== undefined) state.epoch = epoch;
      if (sequenceNumber !== undefined && sequenceNumber > state.lastSequenceNumber) {
        state.lastSequenceNumber = sequenceNumber;
      }
    }
    return {
      ok: true,
      properties: {
        [PRODUCER_EPOCH]: types.wrap_short(epoch ?? state.epoch),
        [PRODUCER_ID]: types.wrap_long(producerId),
        [PRODUCER_SEQUENCE_NUMBER]: types.wrap_int(sequenceNumber ?? state.lastSequenceNumber),
      },
    };
  }

  /**
   * Checks a transfer of `count` events from an idempotent producer; `commit()` records it once the
   * events are in the log. Transfers without the annotations (a plain producer) are admitted as they are.
   */
  admit(
    hub: string,
    partitionId: string,
    annotations: Record<string, unknown> | undefined,
    count: number,
  ): ProducerAdmission {
    const producerId = optionalNumber(annotations?.[PRODUCER_ID]);
    const epoch = optionalNumber(annotations?.[PRODUCER_EPOCH]);
    const first = optionalNumber(annotations?.[PRODUCER_SEQUENCE_NUMBER]);
    if (producerId === undefined || epoch === undefined || first === undefined) return ADMIT;
    const state = this.states.get(stateKey(hub, partitionId, producerId));
    if (!state) {
      const description = `Producer ${producerId} is not known on this partition.`;
      return { ok: false, error: { condition: ARGUMENT_OUT_OF_RANGE, description } };
    }
    if (epoch < state.epoch) return { ok: false, error: epochStolen(producerId, epoch, state.epoch) };
    if (first === state.lastBatchFirst && first + count - 1 === state.lastSequenceNumber) {
      return { ok: true, duplicate: true, commit: () => undefined };
    }
    if (first <= state.lastSequenceNumber) {
      return {
        ok: false,
        error: {
          condition: OUT_OF_ORDER_SEQUENCE,
          description:
            `Producer ${producerId} sent an old sequence number: ${first} is not above the last ` +
            `published ${state.lastSequenceNumber}.`,
        },
      };
    }
    return {
      ok: true,
      duplicate: false,
      commit: () => {
        state.epoch = epoch;
        state.lastBatchFirst = first;
        state.lastSequenceNumber = first + count - 1;
      },
    };
  }
}

function stateKey(hub: string, partitionId: string, producerId: number): string {
  return `${hub.toLowerCase()}/${partitionId}/${producerId}`;
}
