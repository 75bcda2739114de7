/** Checks a hub's Capture settings before the hub exists; errors say what to change. */
import { archiveNameFormatProblem } from '../../capture/archive-name-format.ts';
import type { EmulatorCaptureConfig } from '../types.ts';

export function validateCaptureConfig(hub: string, c: EmulatorCaptureConfig): void {
  const problems: string[] = [];
  if (typeof c.storageConnectionString !== 'string' || c.storageConnectionString === '')
    problems.push("storageConnectionString: required (a Blob Storage connection string, e.g. Azurite's)");
  if (typeof c.blobContainer !== 'string' || !/^[a-z0-9](?!.*--)[a-z0-9-]{1,61}[a-z0-9]$/.test(c.blobContainer)) {
    problems.push(
      `blobContainer: '${String(c.blobContainer)}' is not a container name (3-63 lower-case letters, digits and ` +
        `single hyphens)`,
    );
  }
  const formatProblem = c.archiveNameFormat === undefined ? undefined : archiveNameFormatProblem(c.archiveNameFormat);
  if (formatProblem) problems.push(`archiveNameFormat: ${formatProblem}`);
  for (const key of ['intervalMs', 'sizeLimitBytes'] as const) {
    const v = c[key];
    if (v !== undefined && !(Number.isFinite(v) && v > 0))
      problems.push(`${key}: must be a positive number, got ${String(v)}`);
  }
  if (c.encoding !== undefined && c.encoding !== 'Avro' && c.encoding !== 'AvroDeflate')
    problems.push(`encoding: must be Avro or AvroDeflate, got ${String(c.encoding)}`);
  if (problems.length > 0) throw new Error(`hub '${hub}': capture.${problems.join(`; capture.`)}`);
}
