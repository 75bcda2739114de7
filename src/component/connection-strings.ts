/**
 * Checks of the two connection strings a config carries, done at `validate` so a malformed one is a
 * config error with its path instead of a run-time `TypeError: Invalid URL` or a connect loop. The checks
 * follow what the SDKs accept (`@azure/event-hubs` / `@azure/core-amqp` parseConnectionString and
 * `@azure/storage-blob` extractConnectionStringParts, 12.x), without loading them. Messages name keys,
 * never values: every part of a connection string may be secret.
 */

/** `Key=Value;Key=Value` into a map with lower-cased keys; a segment without `=` makes it unparseable. */
export function connectionStringParts(text: string): Map<string, string> | undefined {
  const out = new Map<string, string>();
  for (const segment of text.split(';')) {
    if (segment.trim() === '') continue;
    const eq = segment.indexOf('=');
    if (eq <= 0) return undefined;
    out.set(segment.slice(0, eq).trim().toLowerCase(), segment.slice(eq + 1).trim());
  }
  return out;
}

function isUrl(text: string, schemes: readonly string[]): boolean {
  try {
    const url = new URL(text);
    // `sb://${env:NS}.servicebus.windows.net` with NS unset parses as a URL; an empty label is no host.
    const labels = url.hostname.replace(/^\[.*\]$/, 'ip').split('.');
    return schemes.includes(url.protocol.replace(/:$/, '')) && labels.every((l) => l !== '');
  } catch {
    return false;
  }
}

const EVENT_HUBS_SHAPE =
  'Endpoint=sb://<namespace>.servicebus.windows.net/ followed by SharedAccessKeyName and SharedAccessKey';
const NOT_PAIRS = "is not a connection string (Key=Value pairs separated by ';'); copy it from the portal:";

/** What is wrong with an Event Hubs connection string, or undefined when the SDK would take it. */
export function eventHubsConnectionStringProblem(text: string): string | undefined {
  const p = connectionStringParts(text);
  if (!p) return `${NOT_PAIRS} ${EVENT_HUBS_SHAPE}`;
  const endpoint = p.get('endpoint');
  if (endpoint === undefined || endpoint === '') return `has no Endpoint; it should look like ${EVENT_HUBS_SHAPE}`;
  if (!isUrl(endpoint, ['sb', 'amqp', 'amqps'])) {
    return 'has an Endpoint that is not a URL like sb://<namespace>.servicebus.windows.net/';
  }
  const keyName = p.get('sharedaccesskeyname');
  const key = p.get('sharedaccesskey');
  const sas = p.get('sharedaccesssignature');
  if (sas) return undefined;
  if (!keyName || !key) {
    return 'needs SharedAccessKeyName and SharedAccessKey (or SharedAccessSignature); for Entra ID use auth instead';
  }
  return undefined;
}

/** What is wrong with a storage connection string; undefined when `BlobServiceClient.fromConnectionString` takes it. */
export function storageConnectionStringProblem(text: string): string | undefined {
  const p = connectionStringParts(text);
  const shape = 'DefaultEndpointsProtocol=https with AccountName, AccountKey and EndpointSuffix (core.windows.net)';
  if (!p) return `${NOT_PAIRS} ${shape}`;
  if (p.get('usedevelopmentstorage')?.toLowerCase() === 'true') return undefined;
  const blobEndpoint = p.get('blobendpoint');
  if (blobEndpoint !== undefined && !isUrl(blobEndpoint, ['http', 'https'])) {
    return 'has a BlobEndpoint that is not an http(s) URL';
  }
  if (p.has('accountkey') || p.has('defaultendpointsprotocol')) {
    if (!p.get('accountname')) return 'has no AccountName';
    if (!p.get('accountkey')) return 'has no AccountKey';
    if (!blobEndpoint) {
      const protocol = p.get('defaultendpointsprotocol')?.toLowerCase();
      if (protocol !== 'https' && protocol !== 'http')
        return 'needs DefaultEndpointsProtocol=https (or a BlobEndpoint)';
      if (!p.get('endpointsuffix'))
        return 'needs EndpointSuffix (core.windows.net in the public cloud) or a BlobEndpoint';
    }
    return undefined;
  }
  if (p.has('sharedaccesssignature')) {
    if (!blobEndpoint) return 'has a SharedAccessSignature but no BlobEndpoint';
    return undefined;
  }
  return `has neither AccountKey nor SharedAccessSignature; it should look like ${shape}`;
}
