/** Fault injection: the state behind `emulator.faults`, read by the delivery and request paths. */
import type { EmulatorFaults, FaultCondition } from '../types.ts';
import type { DeliveryControl } from './consumer-link.ts';
import type { PartitionLog } from './partition-log.ts';

export interface FaultHost {
  dropConnections(options: { containerId?: string; condition?: string; description?: string }): number;
  detachReceivers(options: {
    hub: string;
    partitionId: string;
    consumerGroup?: string;
    condition: string;
    description?: string;
  }): number;
  /** Wakes the receivers of a partition (after a resume or a delay change). */
  pumpPartition(hub: string, partitionId: string): void;
  pumpAll(): void;
}

export interface RequestFailure {
  condition: string;
  description: string;
}

function partitionKey(hub: string, partitionId: string): string {
  return `${hub.toLowerCase()}/${partitionId}`;
}

export class FaultController implements EmulatorFaults, DeliveryControl {
  private readonly paused = new Set<string>();
  private readonly delays = new Map<string, number>();
  private globalDelayMs = 0;
  private readonly failures: Record<'management' | 'cbs', RequestFailure[]> = { management: [], cbs: [] };

  constructor(private readonly host: FaultHost) {}

  dropConnections(options: { containerId?: string; condition?: FaultCondition; description?: string } = {}): number {
    return this.host.dropConnections(options);
  }

  detachReceivers(options: {
    hub: string;
    partitionId: string;
    consumerGroup?: string;
    condition: FaultCondition;
    description?: string;
  }): number {
    return this.host.detachReceivers(options);
  }

  slowDelivery(delayMs: number, target?: { hub: string; partitionId: string }): void {
    if (!Number.isFinite(delayMs) || delayMs < 0)
      throw new RangeError(`delayMs must be a non-negative number, got ${delayMs}`);
    if (target) {
      if (delayMs === 0) this.delays.delete(partitionKey(target.hub, target.partitionId));
      else this.delays.set(partitionKey(target.hub, target.partitionId), delayMs);
    } else {
      this.globalDelayMs = delayMs;
    }
    this.host.pumpAll();
  }

  pausePartition(hub: string, partitionId: string): void {
    this.paused.add(partitionKey(hub, partitionId));
  }

  resumePartition(hub: string, partitionId: string): void {
    this.paused.delete(partitionKey(hub, partitionId));
    this.host.pumpPartition(hub, partitionId);
  }

  failNextRequests(kind: 'management' | 'cbs', count: number, condition: FaultCondition, description?: string): void {
    if (kind !== 'management' && kind !== 'cbs')
      throw new RangeError(`kind must be 'management' or 'cbs', got ${String(kind)}`);
    for (let i = 0; i < count; i++) {
      this.failures[kind].push({ condition, description: description ?? `Injected fault: ${condition}` });
    }
  }

  reset(): void {
    this.paused.clear();
    this.delays.clear();
    this.globalDelayMs = 0;
    this.failures.management.length = 0;
    this.failures.cbs.length = 0;
    this.host.pumpAll();
  }

  /** The injected failure for the next request of this kind, if one is pending. */
  takeRequestFailure(kind: 'management' | 'cbs'): RequestFailure | undefined {
    return this.failures[kind].shift();
  }

  isPaused(log: PartitionLog): boolean {
    return this.paused.size > 0 && this.paused.has(partitionKey(log.hub, log.partitionId));
  }

  delayMs(log: PartitionLog): number {
    if (this.delays.size === 0) return this.globalDelayMs;
    return this.delays.get(partitionKey(log.hub, log.partitionId)) ?? this.globalDelayMs;
  }
}
