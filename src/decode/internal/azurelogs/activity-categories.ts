import { decodeGoStruct, parseGoJson, type GoStructSpec, type GoStructValue } from './go-struct.ts';
import { GoValueError } from './go-values.ts';
import { putBool, putInt, putStr, type Attrs } from './put-helpers.ts';

/*
 * The Activity Log categories pkg/translator/azurelogs maps to record attributes (category_logs.go):
 * Administrative, Alert, Autoscale, Security, Policy, Recommendation, ServiceHealth, ResourceHealth.
 * Spec entries are [JSON name, Go type, attribute or '' when the field is handled in code].
 */

type Spec = readonly (readonly [string, 'string' | 'bool', string])[];

function structOf(spec: Spec): GoStructSpec {
  return spec.map(([name, type]) => [name, type] as const);
}

/** Decodes and puts every string field that maps straight to an attribute (putStr). */
function mapStrings(
  properties: Record<string, unknown>,
  attrs: Attrs,
  spec: Spec,
  goStruct: GoStructSpec,
  what: string,
): GoStructValue {
  const decoded = decodeGoStruct(properties, goStruct, what);
  for (const [name, type, attribute] of spec) {
    if (type === 'string' && attribute !== '') putStr(attrs, attribute, decoded.fields[name] as string);
  }
  return decoded;
}

function simple(spec: Spec, what: string): (properties: Record<string, unknown>, attrs: Attrs) => GoStructValue {
  const goStruct = structOf(spec);
  return (properties, attrs) => mapStrings(properties, attrs, spec, goStruct, what);
}

export const mapAdministrativeLog = simple(
  [
    ['entity', 'string', 'azure.administrative.entity'],
    ['message', 'string', 'azure.administrative.message'],
    ['hierarchy', 'string', 'azure.administrative.hierarchy'],
  ],
  'Administrative properties',
);

export const mapAlertLog = simple(
  [
    ['webHookUri', 'string', 'azure.alert.webhook.uri'],
    ['RuleUri', 'string', 'azure.alert.rule.uri'],
    ['RuleName', 'string', 'azure.alert.rule.name'],
    ['RuleDescription', 'string', 'azure.alert.rule.description'],
    ['Threshold', 'string', 'azure.alert.threshold'],
    ['WindowSizeInMinutes', 'string', 'azure.alert.window_size_minutes'],
    ['Aggregation', 'string', 'azure.alert.aggregation'],
    ['Operator', 'string', 'azure.alert.operator'],
    ['MetricName', 'string', 'azure.alert.metric.name'],
    ['MetricUnit', 'string', 'azure.alert.metric.unit'],
  ],
  'Alert properties',
);

export const mapAutoscaleLog = simple(
  [
    ['Description', 'string', 'azure.autoscale.description'],
    ['ResourceName', 'string', 'azure.autoscale.resource.name'],
    ['OldInstancesCount', 'string', 'azure.autoscale.instances.previous_count'],
    ['NewInstancesCount', 'string', 'azure.autoscale.instances.count'],
    ['LastScaleActionTime', 'string', 'azure.autoscale.resource.last_scale'],
  ],
  'Autoscale properties',
);

export const mapRecommendationLog = simple(
  [
    ['recommendationSchemaVersion', 'string', 'azure.recommendation.schema_version'],
    ['recommendationCategory', 'string', 'azure.recommendation.category'],
    ['recommendationImpact', 'string', 'azure.recommendation.impact'],
    ['recommendationName', 'string', 'azure.recommendation.name'],
    ['recommendationResourceLink', 'string', 'azure.recommendation.link'],
    ['recommendationType', 'string', 'azure.recommendation.type'],
  ],
  'Recommendation properties',
);

export const mapResourceHealthLog = simple(
  [
    ['title', 'string', 'azure.resourcehealth.title'],
    ['details', 'string', 'azure.resourcehealth.details'],
    ['currentHealthStatus', 'string', 'azure.resourcehealth.state'],
    ['previousHealthStatus', 'string', 'azure.resourcehealth.previous_state'],
    ['type', 'string', 'azure.resourcehealth.type'],
    ['cause', 'string', 'azure.resourcehealth.cause'],
  ],
  'Resource Health properties',
);

const SECURITY: Spec = [
  ['accountLogonId', 'string', 'azure.security.account_logon_id'],
  ['commandLine', 'string', 'process.command_line'],
  ['domainName', 'string', 'azure.security.domain_name'],
  ['parentProcess', 'string', ''],
  ['parentProcess id', 'string', ''],
  ['processId', 'string', ''],
  ['processName', 'string', 'process.executable.path'],
  ['userName', 'string', 'process.owner'],
  ['UserSID', 'string', 'enduser.id'],
  ['ActionTaken', 'string', 'azure.security.action_taken'],
  ['Severity', 'string', 'azure.security.severity'],
];
const SECURITY_STRUCT = structOf(SECURITY);

export function mapSecurityLog(properties: Record<string, unknown>, attrs: Attrs): GoStructValue {
  const decoded = decodeGoStruct(properties, SECURITY_STRUCT, 'Security properties');
  const f = decoded.fields;
  // Go puts the process ids (and fails on a missing one) between command line and executable path.
  putInt(attrs, 'process.pid', f.processId as string);
  putInt(attrs, 'process.parent_pid', f['parentProcess id'] as string);
  for (const [name, , attribute] of SECURITY) if (attribute !== '') putStr(attrs, attribute, f[name] as string);
  return decoded;
}

const POLICY_STRUCT: GoStructSpec = [
  ['isComplianceCheck', 'string'],
  ['resourceLocation', 'string'],
  ['ancestors', 'string'],
  ['policies', 'string'],
  ['hierarchy', 'string'],
];
const POLICY_ELEMENT: GoStructSpec = [
  ['policyDefinitionId', 'string'],
  ['policySetDefinitionId', 'string'],
  ['policyDefinitionReferenceId', 'string'],
  ['policySetDefinitionName', 'string'],
  ['policySetDefinitionDisplayName', 'string'],
  ['policySetDefinitionVersion', 'string'],
  ['policyDefinitionName', 'string'],
  ['policyDefinitionDisplayName', 'string'],
  ['policyDefinitionVersion', 'string'],
  ['policyDefinitionEffect', 'string'],
  ['policyAssignmentId', 'string'],
  ['policyAssignmentName', 'string'],
  ['policyAssignmentDisplayName', 'string'],
  ['policyAssignmentScope', 'string'],
  ['policyExemptionIds', 'strings'],
  ['policyAssignmentIds', 'strings'],
];
/** Policy element field → key in each azure.policy.policies map, in Go's order. */
const POLICY_KEYS: readonly (readonly [string, string])[] = [
  ['definition.id', 'policyDefinitionId'],
  ['definition.name', 'policyDefinitionName'],
  ['definition.display_name', 'policyDefinitionDisplayName'],
  ['definition.version', 'policyDefinitionVersion'],
  ['definition.effect', 'policyDefinitionEffect'],
  ['definition.reference_id', 'policyDefinitionReferenceId'],
  ['set_definition.id', 'policySetDefinitionId'],
  ['set_definition.name', 'policySetDefinitionName'],
  ['set_definition.display_name', 'policySetDefinitionDisplayName'],
  ['set_definition.version', 'policySetDefinitionVersion'],
  ['assignment.id', 'policyAssignmentId'],
  ['assignment.name', 'policyAssignmentName'],
  ['assignment.display_name', 'policyAssignmentDisplayName'],
  ['assignment.scope', 'policyAssignmentScope'],
];

export function mapPolicyLog(properties: Record<string, unknown>, attrs: Attrs): GoStructValue {
  const decoded = decodeGoStruct(properties, POLICY_STRUCT, 'Policy properties');
  const f = decoded.fields;
  const policies = goArrayOfStructs(
    parseGoJson(f.policies as string, 'Policy properties'),
    POLICY_ELEMENT,
    'Policy properties',
  );
  putBool(attrs, 'azure.policy.compliance_check', f.isComplianceCheck as string);
  putStr(attrs, 'azure.location', f.resourceLocation as string);
  putStr(attrs, 'azure.policy.ancestors', f.ancestors as string);
  putStr(attrs, 'azure.policy.hierarchy', f.hierarchy as string);
  if (policies.length > 0) {
    attrs['azure.policy.policies'] = policies.map((p) => {
      const m: Record<string, string> = {};
      for (const [key, field] of POLICY_KEYS) m[key] = p[field] as string;
      return m;
    });
  }
  return decoded;
}

const SERVICE_HEALTH: Spec = [
  ['title', 'string', 'azure.servicehealth.title'],
  ['service', 'string', 'azure.servicehealth.service'],
  ['region', 'string', 'azure.servicehealth.region'],
  ['communication', 'string', 'azure.servicehealth.communication.body'],
  ['communicationId', 'string', 'azure.servicehealth.communication.id'],
  ['incidentType', 'string', 'azure.servicehealth.incident.type'],
  ['trackingId', 'string', 'azure.servicehealth.tracking.id'],
  ['impactStartTime', 'string', 'azure.servicehealth.impact.start'],
  ['impactMitigationTime', 'string', 'azure.servicehealth.impact.mitigation'],
  ['impactedServices', 'string', ''],
  ['defaultLanguageTitle', 'string', 'azure.servicehealth.default_language.title'],
  ['defaultLanguageContent', 'string', 'azure.servicehealth.default_language.content'],
  ['stage', 'string', 'azure.servicehealth.state'],
  ['maintenanceId', 'string', 'azure.servicehealth.maintenance.id'],
  ['maintenanceType', 'string', 'azure.servicehealth.maintenance.type'],
  ['isHIR', 'bool', ''],
  ['IsSynthetic', 'string', ''],
  ['impactType', 'string', 'azure.servicehealth.impact.type'],
  ['impactCategory', 'string', 'azure.servicehealth.impact.category'],
];
const SERVICE_HEALTH_STRUCT = structOf(SERVICE_HEALTH);
const IMPACTED_SERVICE: GoStructSpec = [
  ['ServiceName', 'string'],
  ['ServiceId', 'string'],
  ['ServiceGuid', 'string'],
];
const IMPACTED_REGION: GoStructSpec = [
  ['RegionName', 'string'],
  ['RegionId', 'string'],
];

export function mapServiceHealthLog(properties: Record<string, unknown>, attrs: Attrs): GoStructValue {
  const decoded = decodeGoStruct(properties, SERVICE_HEALTH_STRUCT, 'Service Health properties');
  const f = decoded.fields;
  const what = 'Impacted Services properties';
  const services = parseGoJson(f.impactedServices as string, what);
  const list = goArrayOfStructs(services, IMPACTED_SERVICE, what);
  if (list.length > 0) {
    attrs['azure.servicehealth.impact.services'] = list.map((s, i) => {
      const m: Record<string, unknown> = { name: s.ServiceName, id: s.ServiceId, guid: s.ServiceGuid };
      const regionsRaw = ((services as unknown[])[i] as Record<string, unknown> | null)?.ImpactedRegions;
      const regions =
        regionsRaw === undefined || regionsRaw === null ? [] : goArrayOfStructs(regionsRaw, IMPACTED_REGION, what);
      if (regions.length > 0) m.regions = regions.map((r) => ({ name: r.RegionName, id: r.RegionId }));
      return m;
    });
  }
  for (const [name, type, attribute] of SERVICE_HEALTH) {
    if (type === 'string' && attribute !== '') putStr(attrs, attribute, f[name] as string);
  }
  if (f.isHIR === true) attrs['azure.servicehealth.is_hir'] = true;
  putBool(attrs, 'azure.servicehealth.is_synthetic', f.IsSynthetic as string);
  return decoded;
}

/** A JSON array (or null) decoded into a Go slice of structs; anything else fails like Go. */
function goArrayOfStructs(value: unknown, spec: GoStructSpec, what: string): Readonly<Record<string, unknown>>[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw new GoValueError(`failed to parse ${what}: not an array`);
  return value.map((item) => {
    if (item === null) return decodeGoStruct({}, spec, what).fields;
    if (typeof item !== 'object' || Array.isArray(item))
      throw new GoValueError(`failed to parse ${what}: element is not an object`);
    return decodeGoStruct(item as Record<string, unknown>, spec, what).fields;
  });
}
