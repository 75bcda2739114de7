/** Classification of `@azure/storage-blob` RestErrors by HTTP status and storage error code. */
import { redact } from '../component/redact.ts';

export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | undefined)?.statusCode;
  return typeof status === 'number' ? status : undefined;
}

function errorCodeOf(error: unknown): string | undefined {
  const e = error as { code?: unknown; details?: { errorCode?: unknown } } | undefined;
  const code = e?.details?.errorCode ?? e?.code;
  return typeof code === 'string' ? code : undefined;
}

/** 404: the blob (or container) does not exist. */
export function isNotFound(error: unknown): boolean {
  return statusOf(error) === 404;
}

/** 409 or 412 on a conditional write: another writer won (ETag changed, blob exists, lease held). */
export function isConflict(error: unknown): boolean {
  const status = statusOf(error);
  return status === 409 || status === 412;
}

/**
 * The lease is definitely no longer ours: another lease id holds it (409 LeaseIdMismatchWithLeaseOperation),
 * it was released or broken (409 LeaseIsBrokenAndCannotBeRenewed, 412 LeaseNotPresentWithBlobOperation), or
 * the blob is gone (404). Anything else (timeouts, 5xx, connection refused) may be transient.
 */
export function isLeaseGone(error: unknown): boolean {
  const status = statusOf(error);
  return status === 404 || status === 409 || status === 412;
}

/** A short, secret-free description of a storage error for logs and events. */
export function describeStorageError(error: unknown): string {
  const status = statusOf(error);
  const code = errorCodeOf(error);
  const name = (error as { name?: unknown } | undefined)?.name;
  if (status !== undefined || code !== undefined)
    return `storage request failed (${status ?? 'no status'} ${code ?? ''})`.replace(' )', ')');
  if (name === 'AbortError') return 'storage request timed out';
  const message = error instanceof Error ? error.message : String(error);
  return `storage request failed: ${redact(message)}`;
}

/** A storage failure that retrying with the same configuration cannot fix, with the key to fix. */
export interface StorageMisconfiguration {
  readonly configKey: string;
  readonly hint: string;
}

/** Container missing, or credentials refused: the configuration is at fault, not the service. */
function storageMisconfiguration(error: unknown): StorageMisconfiguration | undefined {
  const status = statusOf(error);
  const code = errorCodeOf(error);
  if (code === 'ContainerNotFound') {
    return {
      configKey: 'blob_checkpoint_store.container_name',
      hint: 'create the container, or set blob_checkpoint_store.create_container: true',
    };
  }
  if (
    status === 403 ||
    code === 'AuthenticationFailed' ||
    code === 'AuthorizationFailure' ||
    code === 'AuthorizationPermissionMismatch'
  ) {
    return {
      configKey: 'blob_checkpoint_store.connection',
      hint:
        'the storage account refused the credential: check the account key or SAS (read, write, list, lease on ' +
        "blobs), or the identity's role",
    };
  }
  return undefined;
}

/**
 * A storage error as events carry it: secret-free, `permanent` with the key to fix when the configuration is at fault.
 */
export interface StorageError extends Error {
  readonly permanent: boolean;
  /**
   * Storage answered, refusing a request made under a lease that is no longer ours (a `Lease...` error code:
   * it lapsed and another instance took it, or it was released or broken): not an unreachable store.
   */
  readonly leaseLost?: boolean;
  readonly configKey?: string;
  readonly hint?: string;
}

/**
 * An Error with a secret-free message. The original is deliberately not kept as `cause`: a RestError holds
 * the request, whose URL may carry a SAS token.
 */
export function toStorageError(error: unknown): StorageError {
  if (error instanceof Error && typeof (error as Partial<StorageError>).permanent === 'boolean')
    return error as StorageError;
  const mis = storageMisconfiguration(error);
  const status = statusOf(error);
  const leaseLost = (status === 409 || status === 412) && /^Lease/.test(errorCodeOf(error) ?? '');
  const message = describeStorageError(error) + (mis ? `: ${mis.configKey}: ${mis.hint}` : '');
  return Object.assign(new Error(message), {
    permanent: mis !== undefined,
    ...mis,
    ...(leaseLost ? { leaseLost } : {}),
  });
}
