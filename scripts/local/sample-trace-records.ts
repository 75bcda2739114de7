/**
 * Realistic Application Insights records, as a workspace-based Application Insights resource's diagnostic
 * setting streams its `AppRequests` and `AppDependencies` tables to an Event Hub: the table's columns
 * (Azure Monitor reference, tables/apprequests and tables/appdependencies) with `time` and `resourceId` in
 * place of `TimeGenerated` and `_ResourceId`, W3C ids as hex (`OperationId` 32 characters, `Id` and
 * `ParentId` 16), `Properties` as a map of strings and `Measurements` as a map of numbers. These are the
 * fields the Go receiver's traces unmarshaler reads (pkg/translator/azure, azureTracesRecord).
 *
 * One sample operation: a request to one of the shop's services, and the calls it made (SQL, HTTP, Blob
 * Storage, Service Bus), children of the request and sharing its operation id.
 */
import { createHash } from 'node:crypto';

const SUB = '0C5A2F9E-6D0B-4D4E-9A55-8B1D7B3F9C21';
const COMPONENT = `/SUBSCRIPTIONS/${SUB}/RESOURCEGROUPS/RG-SHOP-PROD/PROVIDERS/MICROSOFT.INSIGHTS/COMPONENTS/APPI-SHOP`;
const RESOURCE_GUID = '5c1f4a8e-27d3-4b9a-8e61-0f2d9c7a3b45';
const IKEY = '9d3e0a71-6b2c-4f85-a1d4-7e8c2b5f0a93';

/** Lowercase hex from a seed: deterministic ids, so a test can name the spans a sample will produce. */
export function sampleHex(seed: string, chars: number): string {
  return createHash('sha256').update(seed).digest('hex').slice(0, chars);
}

interface ServiceShape {
  readonly role: string;
  readonly instance: string;
  readonly version: string;
  readonly sdk: string;
  readonly host: string;
  readonly routes: readonly { readonly method: string; readonly path: string; readonly route: string }[];
}

const SERVICES: readonly ServiceShape[] = [
  {
    role: 'shop-frontend',
    instance: 'shop-frontend-7d9f8c6b5-x2lkq',
    version: '2.14.0',
    sdk: 'node:3.5.0',
    host: 'shop.contoso.com',
    routes: [
      { method: 'GET', path: '/products/142', route: '/products/{id}' },
      { method: 'GET', path: '/cart', route: '/cart' },
    ],
  },
  {
    role: 'shop-api',
    instance: 'RD0003FF4A1B2C',
    version: '1.8.3.0',
    sdk: 'dotnetiso:1.1.0.0_dotnet8.0.16:otel1.12.0:ext1.4.0',
    host: 'app-shop-api.azurewebsites.net',
    routes: [
      { method: 'POST', path: '/api/orders', route: '/api/orders' },
      { method: 'GET', path: '/api/orders/1042', route: '/api/orders/{id}' },
    ],
  },
];

type Dependency = (s: { i: number; failed: boolean }) => Record<string, unknown>;

/** The calls a request makes, in order; a body with more records cycles through them. */
const DEPENDENCIES: readonly Dependency[] = [
  ({ i }) => ({
    DependencyType: 'SQL',
    Target: 'sql-shop-prod.database.windows.net | shopdb',
    Name: 'sql-shop-prod.database.windows.net | shopdb',
    Data: `SELECT TOP 10 * FROM dbo.Orders WHERE CustomerId = @customerId`,
    Success: true,
    ResultCode: '0',
    DurationMs: 3.1 + (i % 7) * 1.9,
    Properties: { 'DB Name': 'shopdb' },
  }),
  ({ i, failed }) => ({
    DependencyType: 'HTTP',
    Target: 'payments.contoso-pay.com',
    Name: 'POST /v2/charges',
    Data: `https://payments.contoso-pay.com/v2/charges?idempotency=${sampleHex(`pay${i}`, 12)}`,
    Success: !failed,
    ResultCode: failed ? '503' : '201',
    DurationMs: 41.7 + (i % 5) * 12.3,
    Properties: { 'HTTP Method': 'POST' },
  }),
  ({ i }) => ({
    DependencyType: 'Azure blob',
    Target: 'stshopprod.blob.core.windows.net',
    Name: 'PUT invoices/2024/05',
    Data: `https://stshopprod.blob.core.windows.net/invoices/2024/05/invoice-${1000 + i}.json`,
    Success: true,
    ResultCode: '201',
    DurationMs: 27.4 + (i % 3) * 4,
    Properties: { Container: 'invoices' },
  }),
  () => ({
    DependencyType: 'Azure Service Bus',
    Target: 'sb-shop.servicebus.windows.net/orders',
    Name: 'ServiceBusSender.Send',
    Data: '',
    Success: true,
    ResultCode: '',
    DurationMs: 8.2,
    Properties: { 'messaging.destination': 'orders' },
  }),
];

/** Azure's ISO 8601 with 7 fractional digits, from a time in ms plus extra 100 ns ticks. */
function azureIso(ms: number, ticks: number): string {
  const d = new Date(ms);
  return `${d.toISOString().slice(0, 23)}${String(ticks % 10_000).padStart(4, '0')}Z`;
}

/** Columns every Application Insights table shares, for one service. */
function common(service: ServiceShape, i: number): Record<string, unknown> {
  return {
    resourceId: COMPONENT,
    ResourceGUID: RESOURCE_GUID,
    AppRoleInstance: service.instance,
    AppRoleName: service.role,
    AppVersion: service.version,
    ClientCity: 'Amsterdam',
    ClientCountryOrRegion: 'Netherlands',
    ClientIP: '0.0.0.0',
    ClientStateOrProvince: 'North Holland',
    ClientType: 'PC',
    IKey: IKEY,
    SDKVersion: service.sdk,
    ItemCount: 1,
    _BilledSize: 1_180 + (i % 9) * 17,
  };
}

/**
 * The records of one sample operation `i` starting at `startMs`: record 0 is the request (`AppRequests`),
 * records 1.. its dependencies (`AppDependencies`). Every third operation is a root (its request's
 * `ParentId` is the operation id, as Application Insights writes it for a request nobody called); the
 * others were called by an upstream span. One in five fails (a 503 from the payment provider, a 500 back).
 */
export function traceRecords(i: number, startMs: number, count: number): Record<string, unknown>[] {
  const service = SERVICES[i % SERVICES.length]!;
  const route = service.routes[Math.floor(i / SERVICES.length) % service.routes.length]!;
  const operationId = sampleHex(`operation-${i}`, 32);
  const requestId = sampleHex(`request-${i}`, 16);
  const failed = i % 5 === 4;
  const operationName = `${route.method} ${route.route}`;
  const deps = Array.from({ length: Math.max(0, count - 1) }, (_, k) =>
    DEPENDENCIES[k % DEPENDENCIES.length]!({ i, failed }),
  );
  const depsMs = deps.reduce((sum, d) => sum + (d.DurationMs as number), 0);
  const records: Record<string, unknown>[] = [
    {
      time: azureIso(startMs, i),
      ...common(service, i),
      Type: 'AppRequests',
      Id: requestId,
      ParentId: i % 3 === 0 ? operationId : sampleHex(`caller-${i}`, 16),
      OperationId: operationId,
      OperationName: operationName,
      Name: operationName,
      Url: `https://${service.host}${route.path}`,
      Source: '',
      Success: !failed,
      ResultCode: failed ? '500' : route.method === 'POST' ? '201' : '200',
      DurationMs: Number((depsMs + 5.25 + (i % 11)).toFixed(4)),
      PerformanceBucket: depsMs > 100 ? '100ms-250ms' : '<250ms',
      Properties: { 'HTTP Method': route.method, _MS_ProcessedByMetricExtractors: "(Name:'Requests', Ver:'1.1')" },
      Measurements: {},
    },
  ];
  let offsetMs = 2;
  deps.forEach((dep, k) => {
    records.push({
      time: azureIso(startMs + offsetMs, i + k + 1),
      ...common(service, i),
      Type: 'AppDependencies',
      Id: sampleHex(`dependency-${i}-${k}`, 16),
      ParentId: requestId,
      OperationId: operationId,
      OperationName: operationName,
      ...dep,
      PerformanceBucket: (dep.DurationMs as number) < 250 ? '<250ms' : '250ms-500ms',
      Measurements: {},
    });
    offsetMs += Math.ceil(dep.DurationMs as number) + 1;
  });
  return records;
}
