import type { AnyValue } from '@opentelemetry/api-logs';
import { putMap, putStr } from './attributes.ts';
import { asArray, asFields, asMap, asStr, FieldTypeError, NO_FIELDS, type Fields } from './fields.ts';
import { mapBase, type CategoryMapper, type MappedRecord } from './mapped-record.ts';

/*
 * Data Factory runs (category_datafactory.go). Records carry both `Level` (a number) and `level` (the
 * text): the severity comes from `level`, matched exactly; `Level` is read but not used, as in Go.
 */

function mapRunBase(f: Fields, m: MappedRecord, prefix: 'activity' | 'pipeline' | 'trigger'): void {
  mapBase(f, m, Object.hasOwn(f.object, 'level') ? f.exact('level') : f.get('level'));
  const a = m.attributes;
  putStr(a, `azure.datafactory.${prefix}.start_time`, f.str('start'));
  putStr(a, `azure.datafactory.${prefix}.end_time`, f.str('end'));
  const p = f.obj('properties') ?? NO_FIELDS;
  const annotations = asArray(p.get('Annotations'), 'Annotations');
  if (annotations !== undefined && annotations.length > 0) {
    a['azure.datafactory.annotations'] = annotations.map((x) => asStr(x, 'Annotations'));
  }
  const predecessors = asArray(p.get('Predecessors'), 'Predecessors');
  if (predecessors !== undefined && predecessors.length > 0) {
    a['azure.datafactory.predecessors'] = predecessors.map((x) => (asMap(x, 'Predecessors') ?? null) as AnyValue);
  }
  putMap(a, 'azure.datafactory.user_properties', asMap(p.get('UserProperties'), 'UserProperties'));
  putMap(a, 'azure.datafactory.input', asMap(p.get('Input'), 'Input'));
  putMap(a, 'azure.datafactory.output', asMap(p.get('Output'), 'Output'));
  putMap(a, 'azure.datafactory.parameters', asMap(p.get('Parameters'), 'Parameters'));
  putMap(a, 'azure.datafactory.system_parameters', asMap(p.get('SystemParameters'), 'SystemParameters'));
  putMap(a, 'azure.datafactory.tags', asMap(p.get('Tags'), 'Tags'));
  const error = asFields(p.get('Error'), 'Error') ?? NO_FIELDS;
  putStr(a, 'error.code', error.str('errorCode'));
  putStr(a, 'error.message', error.str('message'));
  putStr(a, 'error.type', error.str('failureType'));
  putStr(a, 'error.target', error.str('target'));
}

/** `Level` must still be a number or a numeric string: Go reads it into a json.Number. */
function checkDiagnosticLevel(f: Fields): void {
  const level = f.exact('Level');
  if (level !== undefined && level !== null && typeof level !== 'number' && typeof level !== 'string') {
    throw new FieldTypeError('Level: expected a number');
  }
}

export const mapActivityRuns: CategoryMapper = (f, m) => {
  checkDiagnosticLevel(f);
  mapRunBase(f, m, 'activity');
  const a = m.attributes;
  putStr(a, 'azure.datafactory.activity.run_id', f.str('activityRunId'));
  putStr(a, 'azure.datafactory.activity.name', f.str('activityName'));
  putStr(a, 'azure.datafactory.pipeline.run_id', f.str('pipelineRunId'));
  putStr(a, 'azure.datafactory.pipeline.name', f.str('pipelineName'));
};

export const mapPipelineRuns: CategoryMapper = (f, m) => {
  checkDiagnosticLevel(f);
  mapRunBase(f, m, 'pipeline');
  const a = m.attributes;
  putStr(a, 'azure.datafactory.pipeline.run_id', f.str('runId'));
  putStr(a, 'azure.datafactory.pipeline.name', f.str('pipelineName'));
  putStr(a, 'azure.datafactory.pipeline.state', f.str('status'));
};

export const mapTriggerRuns: CategoryMapper = (f, m) => {
  checkDiagnosticLevel(f);
  mapRunBase(f, m, 'trigger');
  const a = m.attributes;
  putStr(a, 'azure.datafactory.trigger.run_id', f.str('triggerId'));
  putStr(a, 'azure.datafactory.trigger.name', f.str('triggerName'));
  putStr(a, 'azure.datafactory.trigger.type', f.str('triggerType'));
  putStr(a, 'azure.datafactory.trigger.event_payload', f.str('triggerEvent'));
  putStr(a, 'azure.datafactory.pipeline.state', f.str('status'));
};
