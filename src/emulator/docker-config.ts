/**
 * Reads the JSON config of Microsoft's Docker Event Hubs emulator, so one file serves both:
 * `{"UserConfig":{"NamespaceConfig":[{"Type":"EventHub","Name":"emulatorNs1","Entities":[{"Name":"eh1",
 * "PartitionCount":2,"ConsumerGroups":[{"Name":"cg1"}]}]}],"LoggingConfig":{"Type":"File"}}}`.
 * Microsoft's samples write PartitionCount as a string ("2"); both forms are accepted. Errors name the
 * JSON path of the offending value.
 */
import { DEFAULT_MAX_PARTITIONS } from './tier-quotas.ts';
import type { EmulatorHubConfig } from './types.ts';

export class EmulatorConfigError extends Error {
  override name = 'EmulatorConfigError';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The hubs declared in a Docker emulator config document (already parsed from JSON). `maxPartitions` is
 * the per-hub limit of the chosen tier: 32 (the Docker emulator's) unless `--tier` allows more.
 */
export function hubsFromDockerConfig(doc: unknown, maxPartitions = DEFAULT_MAX_PARTITIONS): EmulatorHubConfig[] {
  const errors: string[] = [];
  const hubs: EmulatorHubConfig[] = [];
  const user = isObject(doc) ? doc.UserConfig : undefined;
  if (!isObject(user)) throw new EmulatorConfigError('UserConfig: required object (the Docker emulator config format)');
  const namespaces = user.NamespaceConfig;
  if (!Array.isArray(namespaces)) throw new EmulatorConfigError('UserConfig.NamespaceConfig: required array');
  namespaces.forEach((ns, i) => {
    const at = `UserConfig.NamespaceConfig[${i}]`;
    if (!isObject(ns)) return void errors.push(`${at}: must be an object`);
    if (ns.Type !== undefined && ns.Type !== 'EventHub')
      return void errors.push(`${at}.Type: must be "EventHub", got ${JSON.stringify(ns.Type)}`);
    if (!Array.isArray(ns.Entities)) return void errors.push(`${at}.Entities: required array`);
    ns.Entities.forEach((entity, j) => {
      const eat = `${at}.Entities[${j}]`;
      if (!isObject(entity)) return void errors.push(`${eat}: must be an object`);
      const name = entity.Name;
      if (typeof name !== 'string' || name === '') errors.push(`${eat}.Name: required string`);
      const rawCount = entity.PartitionCount;
      const partitions = typeof rawCount === 'string' && /^\d+$/.test(rawCount) ? Number(rawCount) : rawCount;
      if (
        typeof partitions !== 'number' ||
        !Number.isInteger(partitions) ||
        partitions < 1 ||
        partitions > maxPartitions
      ) {
        errors.push(
          `${eat}.PartitionCount: must be an integer from 1 to ${maxPartitions}, got ${JSON.stringify(rawCount)}`,
        );
      }
      const groups: string[] = [];
      if (entity.ConsumerGroups !== undefined) {
        if (!Array.isArray(entity.ConsumerGroups)) errors.push(`${eat}.ConsumerGroups: must be an array`);
        else {
          entity.ConsumerGroups.forEach((cg, k) => {
            if (isObject(cg) && typeof cg.Name === 'string' && cg.Name !== '') groups.push(cg.Name);
            else errors.push(`${eat}.ConsumerGroups[${k}].Name: required string`);
          });
        }
      }
      if (typeof name === 'string' && typeof partitions === 'number')
        hubs.push({ name, partitions, consumerGroups: groups });
    });
  });
  if (errors.length > 0) throw new EmulatorConfigError(errors.join('\n'));
  return hubs;
}
