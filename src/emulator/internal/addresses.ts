/**
 * Link addresses the SDK uses (core-amqp / event-hubs connectionConfig): `$cbs`, `$management`,
 * `<hub>` and `<hub>/Partitions/<id>` for senders, `<hub>/ConsumerGroups/<cg>/Partitions/<id>` for
 * receivers. Keywords compare case-insensitively; a leading `sb://host/` form is tolerated.
 */
export type ParsedAddress =
  | { kind: 'cbs' }
  | { kind: 'management' }
  | { kind: 'consumer'; hub: string; consumerGroup: string; partitionId: string }
  | { kind: 'producer'; hub: string; partitionId?: string }
  | { kind: 'invalid' };

function stripEndpoint(address: string): string {
  return address.replace(/^(amqps?|sb):\/\/[^/]*\//i, '').replace(/^\/+/, '');
}

export function parseAddress(raw: unknown): ParsedAddress {
  if (typeof raw !== 'string' || raw.length === 0) return { kind: 'invalid' };
  const address = stripEndpoint(raw);
  const parts = address.split('/');
  const last = parts[parts.length - 1]!.toLowerCase();
  if (last === '$cbs') return { kind: 'cbs' };
  if (last === '$management') return { kind: 'management' };
  if (parts.length === 5 && parts[1]!.toLowerCase() === 'consumergroups' && parts[3]!.toLowerCase() === 'partitions') {
    return { kind: 'consumer', hub: parts[0]!, consumerGroup: parts[2]!, partitionId: parts[4]! };
  }
  if (parts.length === 3 && parts[1]!.toLowerCase() === 'partitions')
    return { kind: 'producer', hub: parts[0]!, partitionId: parts[2]! };
  if (parts.length === 1 && parts[0]) return { kind: 'producer', hub: parts[0] };
  return { kind: 'invalid' };
}
