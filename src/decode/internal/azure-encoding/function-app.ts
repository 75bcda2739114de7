import { parsePropertiesString } from '../properties-string.ts';
import { putInt, putStr } from './attributes.ts';
import { Fields, type JsonObject } from './fields.ts';
import { mapBase, setBody, type CategoryMapper } from './mapped-record.ts';

/*
 * Function App logs (category_functionapp.go). `properties` may be an object or a string of JSON written
 * with single quotes (`"{'appName':'x'}"`), which is repaired first. `appName[/functionName]` becomes the
 * resource's `service.name` and `roleInstance` its `service.instance.id`. Properties that cannot be read
 * are kept as their JSON text in `azure.properties`.
 */

export const mapFunctionAppLogs: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const a = m.attributes;
  a['faas.invoked_provider'] = 'azure';
  const raw = f.get('properties');
  const p = readProperties(raw);
  if (p === undefined) {
    a['azure.properties'] = raw === undefined ? '' : JSON.stringify(raw);
    return;
  }
  const appName = p.str('appName');
  const functionName = p.str('functionName');
  m.resource.serviceName = functionName === '' ? appName : `${appName}/${functionName}`;
  m.resource.serviceInstanceId = p.str('roleInstance');
  putStr(a, 'log.record.uid', p.str('activityId'));
  putStr(a, 'azure.event.name', p.str('eventName'));
  putInt(a, 'azure.event.id', p.num('eventId'));
  putStr(a, 'faas.invocation_id', p.str('functionInvocationId'));
  putStr(a, 'faas.name', `${appName}/${functionName}`);
  putStr(a, 'faas.invoked_name', functionName);
  putStr(a, 'host.id', p.str('hostInstanceId'));
  putStr(a, 'host.image.version', p.str('hostVersion'));
  putInt(a, 'process.pid', p.num('processId'));
  putStr(a, 'exception.stacktrace', p.str('exceptionDetails'));
  putStr(a, 'exception.message', p.str('exceptionMessage'));
  putStr(a, 'exception.type', p.str('exceptionType'));
  setBody(m, p.str('message'));
};

/** The properties' fields, or undefined when they cannot be read (Go then keeps the raw text). */
function readProperties(raw: unknown): Fields | undefined {
  if (raw === null) return new Fields({});
  let value = raw;
  if (typeof raw === 'string' && raw.startsWith('{')) {
    // The one repair of single-quoted properties, on the string's JSON source text (properties-string.ts), as
    // the apply_semantic_conventions layout uses it: repairing the unescaped text broke on any escape (\n).
    value = parsePropertiesString(raw);
    if (value === undefined) return undefined;
  }
  if (value === null || value === undefined || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const fields = new Fields(value as JsonObject);
  try {
    // every typed field must have its Go type, or Go's unmarshal of the properties fails as a whole
    for (const name of STRING_FIELDS) fields.str(name);
    for (const name of NUMBER_FIELDS) fields.num(name);
  } catch {
    return undefined;
  }
  return fields;
}

const STRING_FIELDS = [
  'activityId',
  'appName',
  'category',
  'eventName',
  'exceptionDetails',
  'exceptionMessage',
  'exceptionType',
  'functionInvocationId',
  'functionName',
  'hostInstanceId',
  'hostVersion',
  'level',
  'message',
  'roleInstance',
];
const NUMBER_FIELDS = ['eventId', 'levelId', 'processId'];
