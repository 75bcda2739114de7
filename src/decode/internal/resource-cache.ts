import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';

/** Resources kept per decoder; past this the cache starts over (ids seen again get a new object). */
export const MAX_CACHED_RESOURCES = 10_000;

/**
 * One `Resource` object per resource id, reused across batches. Exporters group records by resource
 * object identity (otlp-transformer's createResourceMap), so reusing the object is what puts all records
 * of one Azure resource under one ResourceLogs.
 */
export class ResourceCache {
  readonly #byId = new Map<string, Resource>();
  readonly #idKey: string;
  readonly #extra: Readonly<Record<string, string>>;
  /** The resource for records without a resource id. */
  readonly empty: Resource;
  /** What get() gives for a missing or empty id: `empty`, or a resource whose id attribute is "". */
  readonly #noId: Resource;
  #lastId = '';
  #last: Resource;

  /**
   * @param idKey attribute that holds the id; @param extra attributes every resource carries;
   * @param blankId a record without an id gets `idKey` = "" (the Go receiver's default translator does this).
   */
  constructor(idKey: string, extra: Readonly<Record<string, string>> = {}, blankId = false) {
    this.#idKey = idKey;
    this.#extra = extra;
    this.empty = resourceFromAttributes({ ...extra });
    this.#noId = blankId ? resourceFromAttributes({ ...extra, [idKey]: '' }) : this.empty;
    this.#last = this.empty;
  }

  get(id: string | undefined): Resource {
    if (id === undefined || id === '') return this.#noId;
    // Records of one event usually share a resource: skip the hash lookup for a repeat.
    if (id === this.#lastId) return this.#last;
    let resource = this.#byId.get(id);
    if (resource === undefined) {
      if (this.#byId.size >= MAX_CACHED_RESOURCES) this.#byId.clear();
      resource = resourceFromAttributes({ ...this.#extra, [this.#idKey]: id });
      this.#byId.set(id, resource);
    }
    this.#lastId = id;
    this.#last = resource;
    return resource;
  }
}
