import { putStr } from './attributes.ts';
import { asFields, NO_FIELDS, parseJsonArray, type Fields } from './fields.ts';
import { putActivityIdentity } from './activity-identity.ts';
import { mapBase, type CategoryMapper, type MappedRecord } from './mapped-record.ts';
import { mapAdministrative } from './activity-administrative.ts';

/*
 * Activity Log categories (category_activitylogs.go, category_recommendation.go): the common schema plus
 * the identity, then each category's properties. Administrative (with PIM events) has its own file.
 */

/** Common schema + Activity Log identity, then the properties (empty fields when absent). */
export function mapActivityBase(f: Fields, m: MappedRecord): Fields {
  mapBase(f, m);
  const identity = f.obj('identity');
  if (identity !== undefined) putActivityIdentity(m.attributes, identity);
  return f.obj('properties') ?? NO_FIELDS;
}

/** Copies string properties to attributes: [property, attribute] pairs. */
function copy(p: Fields, m: MappedRecord, pairs: ReadonlyArray<readonly [string, string]>): void {
  for (const [key, name] of pairs) putStr(m.attributes, name, p.str(key));
}

export const mapAlert: CategoryMapper = (f, m) => {
  copy(mapActivityBase(f, m), m, [
    ['webHookUri', 'azure.alert.webhook.uri'],
    ['RuleUri', 'azure.alert.rule.uri'],
    ['RuleName', 'azure.alert.rule.name'],
    ['RuleDescription', 'azure.alert.rule.description'],
    ['Threshold', 'azure.alert.threshold'],
    ['WindowSizeInMinutes', 'azure.alert.window_size_minutes'],
    ['Aggregation', 'azure.alert.aggregation'],
    ['Operator', 'azure.alert.operator'],
    ['MetricName', 'azure.alert.metric.name'],
    ['MetricUnit', 'azure.alert.metric.unit'],
  ]);
};

export const mapAutoscale: CategoryMapper = (f, m) => {
  copy(mapActivityBase(f, m), m, [
    ['Description', 'azure.autoscale.description'],
    ['ResourceName', 'azure.autoscale.resource.name'],
    ['OldInstancesCount', 'azure.autoscale.instances.previous_count'],
    ['NewInstancesCount', 'azure.autoscale.instances.count'],
    ['LastScaleActionTime', 'azure.autoscale.resource.last_scale'],
  ]);
};

export const mapSecurity: CategoryMapper = (f, m) => {
  const p = mapActivityBase(f, m);
  copy(p, m, [
    ['commandLine', 'process.command_line'],
    ['processName', 'process.executable.path'],
    ['userName', 'process.owner'],
    ['UserSID', 'enduser.id'],
  ]);
  const pid = p.str('processId');
  if (/^[+-]?\d+$/.test(pid)) m.attributes['process.pid'] = Number(pid);
  const ppid = p.str('parentProcess id');
  if (/^[+-]?\d+$/.test(ppid)) m.attributes['process.parent_pid'] = Number(ppid);
  p.str('parentProcess');
  copy(p, m, [
    ['accountLogonId', 'azure.security.account_logon_id'],
    ['domainName', 'azure.security.domain_name'],
    ['ActionTaken', 'azure.security.action_taken'],
    ['Severity', 'azure.security.severity'],
  ]);
};

export const mapPolicy: CategoryMapper = (f, m) => {
  const p = mapActivityBase(f, m);
  const a = m.attributes;
  const check = p.str('isComplianceCheck');
  if (check !== '') a['azure.policy.compliance_check'] = check.toLowerCase() === 'true';
  copy(p, m, [
    ['resourceLocation', 'azure.location'],
    ['ancestors', 'azure.policy.ancestors'],
    ['hierarchy', 'azure.policy.hierarchy'],
  ]);
  const policies = parseJsonArray(p.str('policies'));
  if (policies !== undefined && policies.length > 0) {
    a['azure.policy.policies'] = policies.map((x) => {
      const e = asFields(x, 'policies') ?? NO_FIELDS;
      return Object.fromEntries(POLICY_FIELDS.map(([key, name]) => [name, e.str(key)]));
    });
  }
};

const POLICY_FIELDS: ReadonlyArray<readonly [string, string]> = [
  ['policyDefinitionId', 'definition.id'],
  ['policyDefinitionName', 'definition.name'],
  ['policyDefinitionDisplayName', 'definition.display_name'],
  ['policyDefinitionVersion', 'definition.version'],
  ['policyDefinitionEffect', 'definition.effect'],
  ['policyDefinitionReferenceId', 'definition.reference_id'],
  ['policySetDefinitionId', 'set_definition.id'],
  ['policySetDefinitionName', 'set_definition.name'],
  ['policySetDefinitionDisplayName', 'set_definition.display_name'],
  ['policySetDefinitionVersion', 'set_definition.version'],
  ['policyAssignmentId', 'assignment.id'],
  ['policyAssignmentName', 'assignment.name'],
  ['policyAssignmentDisplayName', 'assignment.display_name'],
  ['policyAssignmentScope', 'assignment.scope'],
];

export const mapRecommendation: CategoryMapper = (f, m) => {
  copy(mapActivityBase(f, m), m, [
    ['recommendationCategory', 'azure.recommendation.category'],
    ['recommendationImpact', 'azure.recommendation.impact'],
    ['recommendationName', 'azure.recommendation.name'],
    ['recommendationType', 'azure.recommendation.type'],
    ['recommendationSchemaVersion', 'azure.recommendation.schema_version'],
    ['recommendationResourceLink', 'azure.recommendation.link'],
    ['recommendationRisk', 'azure.recommendation.risk'],
  ]);
};

export const mapResourceHealth: CategoryMapper = (f, m) => {
  copy(mapActivityBase(f, m), m, [
    ['title', 'azure.resourcehealth.title'],
    ['details', 'azure.resourcehealth.details'],
    ['currentHealthStatus', 'azure.resourcehealth.state'],
    ['previousHealthStatus', 'azure.resourcehealth.previous_state'],
    ['type', 'azure.resourcehealth.type'],
    ['cause', 'azure.resourcehealth.cause'],
  ]);
};

export { mapAdministrative };
