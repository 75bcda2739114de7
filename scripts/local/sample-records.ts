/**
 * Realistic Azure resource-log records, one builder per category, written from the field lists in Azure's
 * documentation (resource-log schemas per service, activity-log schema, Entra ID sign-in schema). Values are
 * made up but shaped like the real thing, including Azure's quirks: upper-cased resource ids, numbers sent as
 * strings, JSON nested inside strings, US-style times in Event Hubs' own logs.
 */

export interface SampleInput {
  /** Time of the record, ISO 8601 with 7 fractional digits as Azure writes it. */
  readonly iso: string;
  readonly date: Date;
  /** Index of the record, used to vary ids and addresses. */
  readonly i: number;
}

const SUB = '0c5a2f9e-6d0b-4d4e-9a55-8b1d7b3f9c21';
const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
const RG = 'rg-shop-prod';

function guid(i: number, salt: number): string {
  const hex = ((i + 1) * 2654435761 + salt * 40503).toString(16).padStart(8, '0').slice(-8);
  return `${hex}-${hex.slice(0, 4)}-4${hex.slice(1, 4)}-a${hex.slice(5, 8)}-${hex}${hex.slice(0, 4)}`;
}

function ip(i: number, prefix = '203.0.113'): string {
  return `${prefix}.${((i * 37) % 250) + 2}`;
}

function rid(provider: string, type: string, name: string, upper = false): string {
  const id = `/subscriptions/${SUB}/resourceGroups/${RG}/providers/${provider}/${type}/${name}`;
  return upper ? id.toUpperCase() : id;
}

/** US style as Event Hubs' operational logs write it: `5/14/2024 9:30:00 AM +00:00`. */
function usTime(d: Date): string {
  const h = d.getUTCHours();
  const h12 = h % 12 === 0 ? 12 : h % 12;
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  const ss = String(d.getUTCSeconds()).padStart(2, '0');
  return (
    `${d.getUTCMonth() + 1}/${d.getUTCDate()}/${d.getUTCFullYear()} ${h12}:${mm}:${ss} ${h < 12 ? 'AM' : 'PM'} ` +
    `+00:00`
  );
}

export type RecordBuilder = (s: SampleInput) => Record<string, unknown>;

export const SAMPLE_BUILDERS = {
  'activity-administrative': ({ iso, i }) => ({
    time: iso,
    resourceId: rid('Microsoft.Compute', 'virtualMachines', `vm-web-${i % 3}`, true),
    operationName: 'MICROSOFT.COMPUTE/VIRTUALMACHINES/WRITE',
    category: 'Administrative',
    resultType: i % 2 === 0 ? 'Start' : 'Success',
    resultSignature: i % 2 === 0 ? 'Started.' : 'Succeeded.Created',
    durationMs: i % 2 === 0 ? 0 : 8421,
    callerIpAddress: ip(i),
    correlationId: guid(i, 1),
    identity: {
      authorization: {
        scope: rid('Microsoft.Compute', 'virtualMachines', `vm-web-${i % 3}`),
        action: 'Microsoft.Compute/virtualMachines/write',
        evidence: {
          role: 'Contributor',
          roleAssignmentScope: `/subscriptions/${SUB}`,
          roleAssignmentId: guid(i, 2).replace(/-/g, ''),
          roleDefinitionId: 'b24988ac618042a0ab8820f7382dd24c',
          principalId: guid(i, 3).replace(/-/g, ''),
          principalType: 'User',
        },
      },
      claims: {
        aud: 'https://management.core.windows.net/',
        iss: `https://sts.windows.net/${TENANT}/`,
        name: 'Jane Doe',
        'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn': 'jane@contoso.com',
        appid: 'c44b4083-3bb0-49c1-b47d-974e53cbdf3c',
      },
    },
    level: 'Information',
    location: 'global',
    properties: {
      statusCode: i % 2 === 0 ? 'Created' : 'OK',
      serviceRequestId: guid(i, 4),
      eventCategory: 'Administrative',
      entity: rid('Microsoft.Compute', 'virtualMachines', `vm-web-${i % 3}`),
      message: 'Microsoft.Compute/virtualMachines/write',
      hierarchy: `${TENANT}/${SUB}`,
    },
  }),
  'activity-policy': ({ iso, i }) => ({
    time: iso,
    resourceId: rid('Microsoft.Storage', 'storageAccounts', `stshop${i % 2}`, true),
    operationName: 'MICROSOFT.AUTHORIZATION/POLICIES/AUDIT/ACTION',
    category: 'Policy',
    resultType: 'Success',
    resultSignature: 'Succeeded',
    durationMs: 0,
    callerIpAddress: ip(i, '198.51.100'),
    correlationId: guid(i, 5),
    identity: {
      authorization: {
        scope: rid('Microsoft.Storage', 'storageAccounts', `stshop${i % 2}`),
        action: 'Microsoft.Storage/storageAccounts/write',
      },
    },
    level: 'Warning',
    location: 'westeurope',
    properties: {
      isComplianceCheck: 'False',
      resourceLocation: 'westeurope',
      ancestors: TENANT,
      policies: JSON.stringify([
        {
          policyDefinitionId:
            '/providers/Microsoft.Authorization/policyDefinitions/404c3081-a854-4457-ae30-26a93ef643f9',
          policyDefinitionName: '404c3081-a854-4457-ae30-26a93ef643f9',
          policyDefinitionEffect: 'Audit',
          policyAssignmentName: 'SecurityCenterBuiltIn',
          policySetDefinitionName: '1f3afdf9-d0c9-4c3d-847f-89da613e70a8',
        },
      ]),
      hierarchy: `${TENANT}/${SUB}`,
      eventCategory: 'Policy',
      entity: rid('Microsoft.Storage', 'storageAccounts', `stshop${i % 2}`),
      message: 'Microsoft.Authorization/policies/audit/action',
    },
  }),
  'keyvault-audit': ({ iso, i }) => ({
    time: iso,
    resourceId: rid('MICROSOFT.KEYVAULT', 'VAULTS', 'KV-SHOP-PROD', true),
    operationName: i % 2 === 0 ? 'SecretGet' : 'VaultGet',
    operationVersion: '7.4',
    category: 'AuditEvent',
    resultType: 'Success',
    resultSignature: 'OK',
    resultDescription: '',
    durationMs: String(40 + i * 7),
    callerIpAddress: ip(i, '10.20.1'),
    correlationId: guid(i, 6),
    identity: {
      claim: {
        'http://schemas.microsoft.com/identity/claims/objectidentifier': guid(i, 7),
        appid: '1950a258-227b-4e31-a9cf-717495945fc2',
        'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/upn': 'deploy@contoso.com',
      },
    },
    properties: {
      id: `https://kv-shop-prod.vault.azure.net/secrets/db-password/${guid(i, 8).replace(/-/g, '')}`,
      clientInfo: 'azsdk-net-Security.KeyVault.Secrets/4.5.0',
      httpStatusCode: 200,
      requestUri: 'https://kv-shop-prod.vault.azure.net/secrets/db-password/?api-version=7.4',
      isAccessPolicyMatch: true,
      tlsVersion: 'TLS1_2',
    },
  }),
  'appservice-http': ({ iso, i }) => ({
    time: iso,
    resourceId: rid('MICROSOFT.WEB', 'SITES', 'APP-SHOP-FRONTEND', true),
    category: 'AppServiceHTTPLogs',
    operationName: 'Microsoft.Web/sites/log',
    properties: {
      CsHost: 'app-shop-frontend.azurewebsites.net',
      CIp: ip(i),
      SPort: '443',
      CsUriStem: i % 2 === 0 ? '/api/cart' : '/health',
      CsUriQuery: i % 2 === 0 ? 'id=42' : '',
      CsMethod: i % 2 === 0 ? 'POST' : 'GET',
      TimeTaken: 87 + i,
      ScStatus: i % 5 === 4 ? '500' : '200',
      Result: 'Success',
      CsBytes: '1184',
      ScBytes: '5417',
      UserAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36',
      Cookie: '-',
      CsUsername: '-',
      Referer: 'https://shop.contoso.com/',
      ComputerName: 'RD0003FF4A1B2C',
      Protocol: 'HTTP/1.1',
    },
  }),
  'appservice-console': ({ iso, i }) => ({
    time: iso,
    resourceId: rid('MICROSOFT.WEB', 'SITES', 'APP-SHOP-API', true),
    category: 'AppServiceConsoleLogs',
    operationName: 'Microsoft.Web/sites/log',
    level: i % 3 === 2 ? 'Error' : 'Informational',
    resultDescription:
      i % 3 === 2
        ? 'Unhandled exception: System.TimeoutException: The operation has timed out.\n   at Shop.Api.Orders.Submit()'
        : `GET /api/orders/${1000 + i} 200 12.4 ms`,
    properties: {
      containerId: `a1b2c3d4e5f6${i % 10}`,
      host: 'lw1sdlwk0000A7',
      stream: i % 3 === 2 ? 'stderr' : 'stdout',
    },
  }),
  functions: ({ iso, i }) => ({
    time: iso,
    resourceId: rid('MICROSOFT.WEB', 'SITES', 'FUNC-SHOP-ORDERS', true),
    category: 'FunctionAppLogs',
    operationName: 'Microsoft.Web/sites/functions/log',
    level: 'Informational',
    location: 'West Europe',
    properties: {
      appName: 'func-shop-orders',
      roleInstance: '54108609-638134263',
      message:
        i % 2 === 0
          ? `Executing 'Functions.ProcessOrder' (Reason='New queue message detected on 'orders'.', Id=${guid(i, 9)})`
          : `Executed 'Functions.ProcessOrder' (Succeeded, Id=${guid(i, 9)}, Duration=${37 + i}ms)`,
      category: 'Function.ProcessOrder',
      hostVersion: '4.34.2.2',
      functionInvocationId: guid(i, 9),
      functionName: 'Functions.ProcessOrder',
      hostInstanceId: guid(0, 10),
      level: 'Information',
      levelId: 2,
      processId: 5140,
      eventId: i % 2 === 0 ? 1 : 2,
      eventName: i % 2 === 0 ? 'FunctionStarted' : 'FunctionCompleted',
    },
  }),
  'storage-read': ({ iso, i }) => storageRecord(iso, i, 'StorageRead', 'GetBlob'),
  'storage-write': ({ iso, i }) => storageRecord(iso, i, 'StorageWrite', 'PutBlob'),
  'sql-audit': ({ iso, i }) => ({
    LogicalServerName: 'sql-shop-prod',
    SubscriptionId: SUB,
    ResourceGroup: RG,
    originalEventTimestamp: iso,
    time: iso,
    resourceId: rid('MICROSOFT.SQL', 'SERVERS', 'SQL-SHOP-PROD/DATABASES/SHOPDB', true),
    category: 'SQLSecurityAuditEvents',
    operationName: 'AuditEvent',
    properties: {
      event_time: iso,
      sequence_number: 1,
      action_id: 'BCM ',
      action_name: 'BATCH COMPLETED',
      succeeded: 'true',
      is_column_permission: 'false',
      session_id: 71 + i,
      server_principal_name: 'shop_app',
      database_principal_name: 'dbo',
      server_instance_name: 'sql-shop-prod',
      database_name: 'shopdb',
      schema_name: '',
      object_name: '',
      statement: `SELECT TOP 10 * FROM dbo.Orders WHERE CustomerId = ${i + 17}`,
      client_ip: ip(i, '10.30.0'),
      application_name: 'Microsoft SqlClient Data Provider',
      duration_milliseconds: 4 + i,
      response_rows: 10,
      affected_rows: 10,
      connection_id: guid(i, 11),
      audit_schema_version: 1,
      is_server_level_audit: 'false',
    },
  }),
  'aks-kube-audit': ({ iso, i }) => ({
    category: 'kube-audit',
    operationName: 'Microsoft.ContainerService/managedClusters/diagnosticLogs/Read',
    properties: {
      log: JSON.stringify({
        kind: 'Event',
        apiVersion: 'audit.k8s.io/v1',
        level: 'Metadata',
        auditID: guid(i, 12),
        stage: 'ResponseComplete',
        requestURI: '/api/v1/namespaces/shop/pods?limit=500',
        verb: 'list',
        user: {
          username: 'system:serviceaccount:shop:deployer',
          groups: ['system:serviceaccounts', 'system:authenticated'],
        },
        sourceIPs: [ip(i, '10.244.0')],
        userAgent: 'kubectl/v1.29.2',
        objectRef: { resource: 'pods', namespace: 'shop', apiVersion: 'v1' },
        responseStatus: { metadata: {}, code: 200 },
        requestReceivedTimestamp: iso,
        stageTimestamp: iso,
      }),
      pod: `kube-apiserver-6d8f9c7b5-${['x2lkq', 'p9rtz'][i % 2]}`,
      stream: 'stdout',
    },
    resourceId: rid('MICROSOFT.CONTAINERSERVICE', 'MANAGEDCLUSTERS', 'AKS-SHOP-PROD', true),
    time: iso,
    Cloud: 'AzureCloud',
    Environment: 'prod',
    UnderlayClass: 'hcp-underlay',
    UnderlayName: 'hcp-underlay-westeurope-cx-42',
  }),
  'nsg-flow-event': ({ iso, date, i }) => {
    const epoch = Math.floor(date.getTime() / 1000);
    return {
      time: iso,
      systemId: guid(0, 13),
      macAddress: '000D3AF87856',
      category: 'NetworkSecurityGroupFlowEvent',
      resourceId: rid('MICROSOFT.NETWORK', 'NETWORKSECURITYGROUPS', 'NSG-WEB', true),
      operationName: 'NetworkSecurityGroupFlowEvents',
      properties: {
        Version: 2,
        flows: [
          {
            rule: 'DefaultRule_DenyAllInBound',
            flows: [
              { mac: '000D3AF87856', flowTuples: [`${epoch},${ip(i, '94.102.49')},10.5.16.4,28746,443,T,I,D,B,,,,`] },
            ],
          },
          {
            rule: 'UserRule_AllowHttps',
            flows: [
              {
                mac: '000D3AF87856',
                flowTuples: [
                  `${epoch},${ip(i)},10.5.16.4,51324,443,T,I,A,B,,,,`,
                  `${epoch + 5},${ip(i)},10.5.16.4,51324,443,T,I,A,E,12,8712,10,3418`,
                ],
              },
            ],
          },
        ],
      },
    };
  },
  firewall: ({ iso, i }) => ({
    category: 'AzureFirewallNetworkRule',
    time: iso,
    resourceId: rid('MICROSOFT.NETWORK', 'AZUREFIREWALLS', 'AFW-HUB', true),
    operationName: 'AzureFirewallNetworkRuleLog',
    properties: {
      msg:
        `TCP request from 10.1.0.${4 + (i % 3)}:${50720 + i} to 20.42.73.${(i % 5) + 1}:443. Action: ` +
        `${i % 4 === 3 ? 'Deny' : 'Allow'}. `,
    },
  }),
  'frontdoor-access': ({ iso, i }) => ({
    time: iso,
    resourceId: rid('MICROSOFT.CDN', 'PROFILES', 'AFD-SHOP', true),
    category: 'FrontDoorAccessLog',
    operationName: 'Microsoft.Cdn/Profiles/AccessLog/Write',
    properties: {
      trackingReference: `20240514T093000Z-${guid(i, 14).slice(0, 13)}`,
      httpMethod: 'GET',
      httpVersion: '2.0.0.0',
      requestUri: `https://shop.contoso.com:443/products/${100 + i}?ref=home`,
      hostName: 'shop.contoso.com',
      requestBytes: '1342',
      responseBytes: '28740',
      userAgent: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X)',
      clientIp: ip(i),
      clientPort: String(52000 + i),
      socketIp: ip(i),
      timeToFirstByte: '0.031',
      timeTaken: '0.045',
      requestProtocol: 'HTTPS',
      securityProtocol: 'TLS 1.3',
      rulesEngineMatchNames: [],
      httpStatusCode: i % 7 === 6 ? '404' : '200',
      httpStatusDetails: i % 7 === 6 ? '404' : '200',
      pop: 'AMS',
      cacheStatus: i % 2 === 0 ? 'HIT' : 'MISS',
      errorInfo: 'NoError',
      ErrorInfo: 'NoError',
      result: 'N/A',
      endpoint: 'shop-e6fgh3bcd4ezg0a2.z01.azurefd.net',
      routingRuleName: 'route-products',
      originUrl: `https://app-shop-frontend.azurewebsites.net:443/products/${100 + i}?ref=home`,
      originIp: '20.105.232.18:443',
      originName: 'app-shop-frontend.azurewebsites.net:443',
      referer: 'https://shop.contoso.com/',
      clientCountry: 'Netherlands',
      domain: 'shop.contoso.com:443',
      securityCipher: 'TLS_AES_256_GCM_SHA384',
      securityCurves: 'X25519',
    },
  }),
  'appgateway-access': ({ iso, i }) => ({
    timeStamp: iso,
    resourceId: rid('MICROSOFT.NETWORK', 'APPLICATIONGATEWAYS', 'AGW-SHOP', true),
    listenerName: 'listener-https',
    ruleName: 'rule-shop',
    backendPoolName: 'pool-shop',
    backendSettingName: 'settings-https',
    operationName: 'ApplicationGatewayAccess',
    category: 'ApplicationGatewayAccessLog',
    properties: {
      instanceId: `appgw_${i % 2}`,
      clientIP: ip(i),
      clientPort: 50612 + i,
      httpMethod: 'GET',
      originalRequestUriWithArgs: `/checkout?step=${i % 3}`,
      requestUri: '/checkout',
      requestQuery: `step=${i % 3}`,
      userAgent: 'Mozilla/5.0 (X11; Linux x86_64; rv:125.0) Gecko/20100101 Firefox/125.0',
      httpStatus: 200,
      httpVersion: 'HTTP/1.1',
      receivedBytes: 1212,
      sentBytes: 9417,
      clientResponseTime: 0,
      timeTaken: 0.034,
      WAFEvaluationTime: '0.000',
      WAFMode: 'Prevention',
      transactionId: guid(i, 15).replace(/-/g, ''),
      sslEnabled: 'on',
      sslCipher: 'ECDHE-RSA-AES256-GCM-SHA384',
      sslProtocol: 'TLSv1.2',
      sslClientVerify: 'NONE',
      sslClientCertificateFingerprint: '',
      sslClientCertificateIssuerName: '',
      serverRouted: '10.2.1.4:443',
      serverStatus: '200',
      serverResponseLatency: '0.028',
      upstreamSourcePort: '44032',
      originalHost: 'shop.contoso.com',
      host: 'shop.contoso.com',
      error_info: 'ERRORINFO_NO_ERROR',
    },
  }),
  'entra-signin': ({ iso, i }) => ({
    time: iso,
    resourceId: `/tenants/${TENANT}/providers/Microsoft.aadiam`,
    operationName: 'Sign-in activity',
    operationVersion: '1.0',
    category: 'SignInLogs',
    tenantId: TENANT,
    resultType: i % 4 === 3 ? '50126' : '0',
    resultSignature: 'None',
    resultDescription: i % 4 === 3 ? 'Error validating credentials due to invalid username or password.' : '',
    durationMs: 0,
    callerIpAddress: ip(i, '198.51.100'),
    correlationId: guid(i, 16),
    identity: 'Jane Doe',
    Level: 4,
    location: 'NL',
    properties: {
      id: guid(i, 17),
      createdDateTime: iso,
      userDisplayName: 'Jane Doe',
      userPrincipalName: 'jane@contoso.com',
      userId: guid(0, 18),
      appId: '00000003-0000-0ff1-ce00-000000000000',
      appDisplayName: 'Office 365 SharePoint Online',
      ipAddress: ip(i, '198.51.100'),
      status:
        i % 4 === 3
          ? { errorCode: 50126, failureReason: 'Error validating credentials due to invalid username or password.' }
          : { errorCode: 0 },
      clientAppUsed: 'Browser',
      userAgent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_4) AppleWebKit/605.1.15',
      conditionalAccessStatus: 'notApplied',
      isInteractive: true,
      authenticationRequirement: 'multiFactorAuthentication',
      tokenIssuerType: 'AzureAD',
      riskLevelAggregated: 'none',
      riskState: 'none',
      deviceDetail: { deviceId: '', operatingSystem: 'MacOs', browser: 'Safari 17.4' },
      location: {
        city: 'Amsterdam',
        state: 'Noord-Holland',
        countryOrRegion: 'NL',
        geoCoordinates: { latitude: 52.37, longitude: 4.89 },
      },
      mfaDetail: { authMethod: 'Mobile app notification' },
    },
  }),
  'defender-alert': ({ iso, i }) => ({
    time: iso,
    resourceId: rid(
      'Microsoft.Security',
      'locations/westeurope/alerts',
      `2517${guid(i, 19).replace(/-/g, '').slice(0, 12)}`,
      true,
    ),
    operationName: 'Microsoft.Security/locations/alerts/activate/action',
    category: 'Security',
    resultType: 'Active',
    resultSignature: 'Succeeded',
    durationMs: 0,
    correlationId: guid(i, 20),
    identity: { claims: { 'http://schemas.microsoft.com/identity/claims/objectidentifier': 'Microsoft.Security' } },
    level: i % 2 === 0 ? 'Critical' : 'Warning',
    location: 'westeurope',
    properties: {
      eventCategory: 'Security',
      eventName: 'Suspicious authentication activity',
      operationId: guid(i, 21),
      severity: i % 2 === 0 ? 'High' : 'Medium',
      intent: 'CredentialAccess',
      compromisedEntity: `vm-web-${i % 3}`,
      attackedResourceType: 'Virtual Machine',
      remediationSteps:
        '["Block the IP address at the network security group", "Reset the passwords of the accounts involved"]',
      additionalData: {
        'Source IP address': ip(i, '45.95.147'),
        'Number of failed authentication attempts': String(180 + i),
        Protocol: 'RDP',
      },
      alertUri:
        `https://portal.azure.com/#blade/Microsoft_Azure_Security_AzureDefenderForData/AlertBlade/alertId/` +
        `${guid(i, 21)}`,
      startTime: iso,
      endTime: iso,
    },
  }),
  'cosmosdb-data-plane': ({ iso, i }) => ({
    time: iso,
    resourceId: rid('MICROSOFT.DOCUMENTDB', 'DATABASEACCOUNTS', 'COSMOS-SHOP', true),
    category: 'DataPlaneRequests',
    operationName: i % 2 === 0 ? 'Read' : 'Create',
    properties: {
      activityId: guid(i, 22),
      requestResourceType: 'Document',
      requestResourceId: `/dbs/shop/colls/carts/docs/cart-${i}`,
      collectionRid: 'k2dVAOkx4X0=',
      statusCode: i % 2 === 0 ? '200' : '201',
      duration: String(3 + i),
      userAgent: 'azsdk-js-cosmos/4.0.0 Linux/5.15 Node.js/20.12',
      clientIpAddress: ip(i, '10.40.0'),
      requestCharge: i % 2 === 0 ? '1.00' : '6.29',
      requestLength: i % 2 === 0 ? '0' : '512',
      responseLength: '731',
      resourceTokenPermissionId: '',
      resourceTokenPermissionMode: '',
      resourceTokenUserRid: '',
      region: 'West Europe',
      partitionId: '0',
      keyType: 'PrimaryMasterKey',
      databaseName: 'shop',
      collectionName: 'carts',
      authTokenType: 'AadToken',
      aadPrincipalId: guid(0, 23),
    },
  }),
  'eventhubs-operational': ({ date, i }) => ({
    ActivityId: guid(i, 24),
    EventName: i % 2 === 0 ? 'Create EventHub' : 'Update ConsumerGroup',
    resourceId: rid('MICROSOFT.EVENTHUB', 'NAMESPACES', 'EVHNS-SHOP', true),
    SubscriptionId: SUB,
    EventTimeString: usTime(date),
    EventProperties: JSON.stringify({
      SubscriptionId: SUB,
      Namespace: 'evhns-shop',
      Via: `https://evhns-shop.servicebus.windows.net/orders?api-version=2017-04&amp;trackingId=${guid(i, 25)}`,
      TrackingId: `${guid(i, 25)}_M2CH3_M2CH3_G8`,
    }),
    Status: 'Succeeded',
    Caller: 'ARM',
    category: 'OperationalLogs',
  }),
} satisfies Record<string, RecordBuilder>;

function storageRecord(iso: string, i: number, category: string, operationName: string): Record<string, unknown> {
  const write = category === 'StorageWrite';
  return {
    time: iso,
    resourceId: `${rid('Microsoft.Storage', 'storageAccounts', 'stshopprod')}/blobServices/default`,
    category,
    operationName,
    operationVersion: '2023-11-03',
    schemaVersion: '1.0',
    statusCode: write ? 201 : 200,
    statusText: 'Success',
    durationMs: write ? 27 + i : 9 + i,
    callerIpAddress: `${ip(i, '10.10.4')}:${49152 + i}`,
    correlationId: guid(i, 26),
    identity: {
      type: 'OAuth',
      tokenHash: `sha256(${guid(i, 27).replace(/-/g, '').toUpperCase()})`,
      authorization: [
        {
          action: `Microsoft.Storage/storageAccounts/blobServices/containers/blobs/${write ? 'write' : 'read'}`,
          roleAssignmentId: guid(0, 28),
          roleDefinitionId: 'ba92f5b4-2d11-453d-a403-e96b0029c9fe',
          principals: [{ id: guid(0, 29), type: 'ServicePrincipal' }],
          denyAssignmentId: '',
          type: 'RBAC',
          result: 'Granted',
          reason: 'Policy',
        },
      ],
      requester: {
        appId: guid(0, 30),
        audience: 'https://storage.azure.com/',
        objectId: guid(0, 29),
        tenantId: TENANT,
        tokenIssuer: `https://sts.windows.net/${TENANT}/`,
      },
    },
    location: 'westeurope',
    properties: {
      accountName: 'stshopprod',
      userAgentHeader: 'azsdk-js-storage-blob/12.32.0 (NODE-VERSION v20.12.2; Linux 5.15)',
      clientRequestId: guid(i, 31),
      etag: `0x8DC73F${(100000 + i).toString(16).toUpperCase()}`,
      serverLatencyMs: write ? 21 : 4,
      serviceType: 'blob',
      operationCount: 0,
      requestHeaderSize: 845,
      requestBodySize: write ? 18344 : 0,
      responseHeaderSize: 402,
      responseBodySize: write ? 0 : 18344,
      contentLengthHeader: write ? 18344 : 0,
      requestMd5: write ? 'kS8/Yw2xCg5bYb0wVgJHPA==' : '',
      serverMd5: 'kS8/Yw2xCg5bYb0wVgJHPA==',
      lastModifiedTime: '5/14/2024 9:12:44 AM',
      conditionsUsed: write ? 'If-None-Match=*' : '',
      contentType: 'application/json',
      tlsVersion: 'TLS 1.3',
      objectKey: `/stshopprod/invoices/2024/05/invoice-${1000 + i}.json`,
      metricResponseType: 'Success',
      downloadRange: '',
      accessTier: write ? 'Hot' : 'None',
    },
    uri: `https://stshopprod.blob.core.windows.net:443/invoices/2024/05/invoice-${1000 + i}.json`,
    protocol: 'HTTPS',
    resourceType: 'Microsoft.Storage/storageAccounts/blobServices',
  };
}
