import type { AnyValue } from '@opentelemetry/api-logs';
import { putStr } from './attributes.ts';
import { asArray, asFields, NO_FIELDS, parseJsonArray, type Fields } from './fields.ts';
import { putActivityIdentity } from './activity-identity.ts';
import { mapBase, type CategoryMapper, type MappedRecord } from './mapped-record.ts';

/*
 * Activity Log categories Administrative (including PIM events, ResourceProviderName=azurerbac) and
 * ServiceHealth (category_activitylogs.go).
 */

function activityProperties(f: Fields, m: MappedRecord): Fields {
  mapBase(f, m);
  const identity = f.obj('identity');
  if (identity !== undefined) putActivityIdentity(m.attributes, identity);
  return f.obj('properties') ?? NO_FIELDS;
}

const ADMINISTRATIVE: ReadonlyArray<readonly [string, string]> = [
  ['entity', 'azure.administrative.entity'],
  ['message', 'azure.administrative.message'],
  ['hierarchy', 'azure.administrative.hierarchy'],
  ['ResourceGroupName', 'azure.resource.group.name'],
  ['ResourceProviderName', 'azure.resource.provider.name'],
  ['ResourceType', 'azure.resource.type'],
  ['TenantID', 'azure.tenant.id'],
  ['EventName', 'azure.pim.event.name'],
  ['EventID', 'azure.pim.event.id'],
  ['RoleAssignmentRequestId', 'azure.pim.role.assignment.request.id'],
  ['RoleDefinition', 'azure.pim.role.definition.name'],
  ['RoleDefinitionOriginId', 'azure.pim.role.definition.origin.id'],
  ['Justification', 'azure.pim.justification'],
  ['SubjectID', 'azure.pim.subject.id'],
  ['SubjectName', 'azure.pim.subject.name'],
  ['ActionType', 'azure.pim.action.type'],
  ['OriginRoleAssignmentId', 'azure.pim.role.assignment.origin.id'],
];

export const mapAdministrative: CategoryMapper = (f, m) => {
  const p = activityProperties(f, m);
  const a = m.attributes;
  for (const [key, name] of ADMINISTRATIVE) putStr(a, name, p.str(key));
  putStr(a, 'cloud.account.id', p.strPtr('SubscriptionID'));
  const callers = parseJsonArray(p.str('CallerInfo'));
  if (callers !== undefined && callers.length > 0) {
    a['azure.pim.caller'] = callers.map((x) => {
      const c = asFields(x, 'CallerInfo') ?? NO_FIELDS;
      return { identity_type: c.str('CallerIdentityType'), identity_value: c.str('CallerIdentityValue') };
    });
  }
  // statusMessage: JSON text becomes a map; other text is kept as `.text`
  const status = p.get('statusMessage');
  if (typeof status === 'string' && status !== '') {
    const parsed = parseJson(status);
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      a['azure.administrative.status_message'] = parsed as AnyValue;
    } else {
      a['azure.administrative.status_message.text'] = status;
    }
  } else if (status !== null && typeof status === 'object' && !Array.isArray(status)) {
    a['azure.administrative.status_message'] = status as AnyValue;
  }
};

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const SERVICE_HEALTH: ReadonlyArray<readonly [string, string]> = [
  ['title', 'azure.servicehealth.title'],
  ['service', 'azure.servicehealth.service'],
  ['region', 'azure.servicehealth.region'],
  ['communication', 'azure.servicehealth.communication.body'],
  ['incidentType', 'azure.servicehealth.incident.type'],
  ['trackingId', 'azure.servicehealth.tracking.id'],
  ['impactStartTime', 'azure.servicehealth.impact.start'],
  ['impactMitigationTime', 'azure.servicehealth.impact.mitigation'],
  ['defaultLanguageTitle', 'azure.servicehealth.default_language.title'],
  ['defaultLanguageContent', 'azure.servicehealth.default_language.content'],
  ['stage', 'azure.servicehealth.state'],
  ['communicationId', 'azure.servicehealth.communication.id'],
  ['maintenanceId', 'azure.servicehealth.maintenance.id'],
  ['maintenanceType', 'azure.servicehealth.maintenance.type'],
  ['impactType', 'azure.servicehealth.impact.type'],
  ['impactCategory', 'azure.servicehealth.impact.category'],
];

export const mapServiceHealth: CategoryMapper = (f, m) => {
  const p = activityProperties(f, m);
  const a = m.attributes;
  for (const [key, name] of SERVICE_HEALTH) putStr(a, name, p.str(key));
  if (p.get('isHIR') === true) a['azure.servicehealth.is_hir'] = true;
  const synthetic = p.str('IsSynthetic');
  if (synthetic !== '') a['azure.servicehealth.is_synthetic'] = synthetic === 'True' || synthetic === 'true';
  const services = parseJsonArray(p.str('impactedServices'));
  if (services !== undefined && services.length > 0) {
    a['azure.servicehealth.impact.services'] = services.map((x) => {
      const s = asFields(x, 'impactedServices') ?? NO_FIELDS;
      const out: Record<string, AnyValue> = {
        name: s.str('ServiceName'),
        id: s.str('ServiceId'),
        guid: s.str('ServiceGuid'),
      };
      const regions = asArray(s.get('ImpactedRegions'), 'ImpactedRegions');
      if (regions !== undefined && regions.length > 0) {
        out['regions'] = regions.map((r) => {
          const rf = asFields(r, 'ImpactedRegions') ?? NO_FIELDS;
          return { name: rf.str('RegionName'), id: rf.str('RegionId') };
        });
      }
      return out;
    });
  }
};
