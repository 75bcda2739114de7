import type { AnyValue } from '@opentelemetry/api-logs';
import { putFloat, putInt, putStr, putTlsProtocol } from './attributes.ts';
import { asArray, asFields, NO_FIELDS, type Fields } from './fields.ts';
import { mapBase, type CategoryMapper } from './mapped-record.ts';
import { putUrl } from './url.ts';

/*
 * Storage blob logs, StorageRead / StorageWrite / StorageDelete (category_storage.go). The identity is an
 * authorization audit, kept as one `azure.identity` map of its known fields.
 */

export const mapStorageBlobLog: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const a = m.attributes;
  const identity = f.obj('identity');
  if (identity !== undefined) a['azure.identity'] = storageIdentity(identity);
  const status = f.num('statusCode');
  if (status !== undefined && status !== 'Unknown') putInt(a, 'http.response.status_code', status);
  putStr(a, 'http.response.status_text', f.strPtr('statusText'));
  const protocol = f.strPtr('protocol');
  if (protocol !== undefined) putStr(a, 'network.protocol.name', protocol.toLowerCase());
  const uri = f.strPtr('uri');
  if (uri !== undefined) putUrl(a, uri);

  const p = f.obj('properties') ?? NO_FIELDS;
  putStr(a, 'azure.storage.namespace', p.str('accountName'));
  putStr(a, 'user_agent.original', p.str('userAgentHeader'));
  putStr(a, 'azure.service.request.id', p.str('clientRequestId'));
  putFloat(a, 'azure.response.duration', p.num('serverLatencyMs'));
  putStr(a, 'azure.storage.service.type', p.str('serviceType'));
  putInt(a, 'azure.storage.operation.count', p.num('operationCount'));
  putInt(a, 'http.request.body.size', p.num('requestBodySize'));
  putInt(a, 'http.request.header.size', p.num('requestHeaderSize'));
  putInt(a, 'http.response.body.size', p.num('responseBodySize'));
  // Go reads the response header size from requestHeaderSize (a slip in the extension, kept for parity).
  putInt(a, 'http.response.header.size', p.num('requestHeaderSize'));
  putTlsProtocol(a, p.str('tlsVersion'));
  putStr(a, 'azure.storage.object.key', p.str('objectKey'));
  putStr(a, 'azure.storage.source.access_tier', p.str('sourceAccessTier'));
};

function storageIdentity(id: Fields): Record<string, AnyValue> {
  const out: Record<string, AnyValue> = {};
  putStr(out, 'type', id.str('type'));
  putStr(out, 'tokenHash', id.str('tokenHash'));
  const authorization = asArray(id.get('authorization'), 'authorization');
  if (authorization !== undefined && authorization.length > 0) {
    out['authorization'] = authorization.map((item) => {
      const e = asFields(item, 'authorization') ?? NO_FIELDS;
      const entry: Record<string, AnyValue> = {};
      for (const key of [
        'action',
        'roleAssignmentId',
        'roleDefinitionId',
        'denyAssignmentId',
        'type',
        'result',
        'reason',
      ]) {
        putStr(entry, key, e.str(key));
      }
      const principals = asArray(e.get('principals'), 'principals');
      if (principals !== undefined && principals.length > 0) {
        entry['principals'] = principals.map((x) => {
          const pf = asFields(x, 'principals') ?? NO_FIELDS;
          const principal: Record<string, AnyValue> = {};
          putStr(principal, 'id', pf.str('id'));
          putStr(principal, 'type', pf.str('type'));
          return principal;
        });
      }
      return entry;
    });
  }
  const requester = id.obj('requester');
  if (requester !== undefined) {
    const r: Record<string, AnyValue> = {};
    putStr(r, 'objectId', requester.str('objectId'));
    putStr(r, 'tenantId', requester.str('tenantId'));
    out['requester'] = r;
  }
  return out;
}
