/**
 * How each Azure SDK spells the namespace at the start of its checkpoint and ownership blob names, for a
 * connection string whose Endpoint names a port (the emulators, a port-forward, a private endpoint proxy):
 *
 * - JS (`@azure/core-amqp` 4.4, `connectionConfig.ts` `getHost`) and the receiver: the host alone,
 *   `127.0.0.1/<hub>/...`; the JS checkpoint store names blobs after `fullyQualifiedNamespace`, which is
 *   that host. .NET does the same (`EventHubsConnectionStringProperties.FullyQualifiedNamespace` is
 *   `Endpoint.Host`). Our checkpoint store writes this spelling.
 * - Python (azure-eventhub 5.11, `_client_base.py` `_parse_conn_str`): the URL's netloc, host *and* port,
 *   `127.0.0.1:5671/<hub>/...`, and its BlobCheckpointStore names blobs after it.
 *
 * Without a port in the Endpoint (every Azure namespace) all of them write the same names.
 */
import { connectionStringParts } from '../component/connection-strings.ts';

/** Endpoint host and port as written: `sb://127.0.0.1:5671/` gives `127.0.0.1:5671`. */
function endpointNetloc(connectionString: string): string | undefined {
  const endpoint = connectionStringParts(connectionString)?.get('endpoint');
  const match = endpoint === undefined ? null : /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(endpoint);
  // Python's netloc keeps user info; nobody writes one in an Event Hubs Endpoint, so drop it.
  return match?.[1]?.replace(/^.*@/, '');
}

/**
 * The other spellings of `fullyQualifiedNamespace` that another SDK reading the same hub through
 * `connectionString` writes blob names under: `['127.0.0.1:5671']` for `Endpoint=sb://127.0.0.1:5671`,
 * nothing when the Endpoint names no port (or there is no connection string: Entra ID setups name the
 * namespace alone). Lower-cased, as blob names are.
 */
export function alternateNamespaces(connectionString: string | undefined, fullyQualifiedNamespace: string): string[] {
  if (!connectionString) return [];
  const netloc = endpointNetloc(connectionString)?.toLowerCase();
  if (!netloc || !/:\d+$/.test(netloc) || netloc === fullyQualifiedNamespace.toLowerCase()) return [];
  return [netloc];
}
