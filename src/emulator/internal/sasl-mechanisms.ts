/**
 * The SASL mechanisms the service offers, in its order: `MSSBCBS` (claims-based security: the client
 * authenticates afterwards with `$cbs` put-token; azure-uamqp-c asks for it by name), `PLAIN`, `ANONYMOUS`
 * and `EXTERNAL`. The list an AMQP 1.0 client sees decides whether it can connect at all: a client that
 * asks for a mechanism the server did not list gives up before the AMQP header (uAMQP: "Could not find
 * desired SASL mechanism in the list presented by server").
 *
 * Written for rhea 3.0.5 (lib/sasl.js): a server mechanism is a factory of objects with
 * `start(response, hostname)` that set `outcome` (true: authenticated) and `username`. Because `ANONYMOUS`
 * is offered, rhea also accepts a bare AMQP header without a SASL layer (the JS SDK's connection strings
 * with `SharedAccessSignature=` connect that way).
 */
import { timingSafeEqual } from 'node:crypto';

export const SERVICE_SASL_MECHANISMS = ['MSSBCBS', 'PLAIN', 'ANONYMOUS', 'EXTERNAL'] as const;

interface ServerMechanism {
  outcome: boolean | undefined;
  username: string | undefined;
  start(response: Buffer | undefined, hostname?: string): void;
}

/** A mechanism that authenticates nobody in particular: the claims come later, over `$cbs`. */
class ClaimsLater implements ServerMechanism {
  outcome: boolean | undefined;
  username: string | undefined;

  constructor(private readonly fallbackName: string) {}

  start(response: Buffer | undefined): void {
    this.outcome = true;
    const text = response && response.length > 0 ? response.toString('utf8').replace(/^\0+/, '') : '';
    this.username = text || this.fallbackName;
  }
}

/** Splits a PLAIN response (`authzid NUL authcid NUL password`, RFC 4616). */
function plainFields(response: Buffer | undefined): { user: string; password: string } | undefined {
  if (!response) return undefined;
  const parts = response.toString('utf8').split('\0');
  if (parts.length !== 3) return undefined;
  return { user: parts[1]!, password: parts[2]! };
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * `PLAIN` with a shared access key name as the user and the key as the password. Without `sasKeys` any
 * credentials pass; with them, only a known key name with its key (the claims still come over `$cbs`).
 */
class PlainKey implements ServerMechanism {
  outcome: boolean | undefined;
  username: string | undefined;

  constructor(private readonly sasKeys: Record<string, string> | undefined) {}

  start(response: Buffer | undefined): void {
    const fields = plainFields(response);
    if (!fields) {
      this.outcome = false;
      return;
    }
    const key = this.sasKeys && Object.hasOwn(this.sasKeys, fields.user) ? this.sasKeys[fields.user] : undefined;
    this.outcome = !this.sasKeys || (key !== undefined && sameText(key, fields.password));
    this.username = fields.user;
  }
}

/**
 * Replaces a rhea container's server mechanisms with the service's list. The mechanisms object keeps
 * rhea's prototype (its `enable_*` helpers); only own properties are offered, in insertion order.
 */
export function offerServiceMechanisms(container: any, sasKeys: Record<string, string> | undefined): void {
  const factories: Record<(typeof SERVICE_SASL_MECHANISMS)[number], () => ServerMechanism> = {
    MSSBCBS: () => new ClaimsLater('$cbs'),
    PLAIN: () => new PlainKey(sasKeys),
    ANONYMOUS: () => new ClaimsLater('anonymous'),
    EXTERNAL: () => new ClaimsLater('external'),
  };
  const mechanisms = container.sasl_server_mechanisms as Record<string, () => ServerMechanism>;
  for (const name of Object.getOwnPropertyNames(mechanisms)) delete mechanisms[name];
  for (const name of SERVICE_SASL_MECHANISMS) mechanisms[name] = factories[name];
}
