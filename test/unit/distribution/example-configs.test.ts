import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { loadConfig } from '../../../src/config/load-config.ts';
import { builtinComponents } from '../../../src/distribution/builtin-components.ts';
import { shutdownBudgetMs } from '../../../src/distribution/commands/run-command.ts';
import { resolveConfig } from '../../../src/distribution/resolve-config.ts';

const ROOT = join(import.meta.dirname, '../../..');

async function resolve(configs: string[], env: Record<string, string>) {
  const loaded = await loadConfig({ configs, env });
  assert.deepEqual(loaded.unset, [], 'every variable the config uses is given');
  return resolveConfig(loaded.raw, await builtinComponents(), loaded.unset);
}

test('config/azure.yaml validates with connection strings from the environment', async () => {
  const r = await resolve([join(ROOT, 'config/azure.yaml')], {
    EVENTHUB_CONNECTION:
      'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=listen;SharedAccessKey=a2V5;EntityPath=diagnostics',
    STORAGE_CONNECTION:
      'DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=a2V5;EndpointSuffix=core.windows.net',
  });
  const receiver = r.receivers.get('azure_event_hub')!.config as Record<string, any>;
  assert.equal(receiver.group, '$Default');
  assert.equal(receiver.retention, 86_400_000);
  assert.deepEqual(r.service.pipelines[0]!.exporters, ['otlphttp', 'debug']);
});

test('config/azure-entra-id.yaml validates with Entra ID (azure_auth extension)', async () => {
  const r = await resolve([join(ROOT, 'config/azure-entra-id.yaml')], {
    EVENTHUB_NAMESPACE: 'ns.servicebus.windows.net',
    EVENTHUB_NAME: 'diagnostics',
    STORAGE_ACCOUNT_URL: 'https://acct.blob.core.windows.net',
  });
  assert.equal((r.receivers.get('azure_event_hub')!.config as Record<string, unknown>).auth, 'azure_auth');
  assert.deepEqual(r.service.extensions, ['azure_auth', 'health_check']);
});

test('the Kubernetes example: its config validates, and probes, ports and grace period agree with it', async () => {
  const dir = join(ROOT, 'examples/kubernetes');
  const configMap = parseYaml(readFileSync(join(dir, 'configmap.yaml'), 'utf8'));
  const deployment = parseYaml(readFileSync(join(dir, 'deployment.yaml'), 'utf8'));
  const pdb = parseYaml(readFileSync(join(dir, 'pdb.yaml'), 'utf8'));
  const r = await resolve([`yaml:${configMap.data['config.yaml']}`], {
    EVENTHUB_NAMESPACE: 'ns.servicebus.windows.net',
    EVENTHUB_NAME: 'diagnostics',
    STORAGE_ACCOUNT_URL: 'https://acct.blob.core.windows.net',
    OTLP_ENDPOINT: 'http://gateway:4318',
    POD_NAME: 'otelcol-0',
    AZURE_CLIENT_ID: 'c',
    AZURE_TENANT_ID: 't',
    AZURE_FEDERATED_TOKEN_FILE: '/var/run/secrets/azure/tokens/azure-identity-token',
  });
  const health = r.extensions.get('health_check')!.config as { endpoint: string; path: string; liveness_path: string };
  const pod = deployment.spec.template;
  const container = pod.spec.containers[0];
  const port = (name: string) => container.ports.find((p: { name: string }) => p.name === name).containerPort;
  assert.equal(`0.0.0.0:${port('health')}`, health.endpoint);
  assert.ok(
    [health.path, '/health', '/readyz'].includes(container.readinessProbe.httpGet.path),
    'readiness on a readiness path',
  );
  assert.equal(
    container.livenessProbe.httpGet.path,
    health.liveness_path,
    'liveness on the liveness path, not readiness',
  );
  assert.equal(r.service.telemetry.metrics.address, `0.0.0.0:${port('metrics')}`);
  assert.equal(pod.metadata.annotations['prometheus.io/port'], String(port('metrics')));
  assert.equal(pod.metadata.labels['azure.workload.identity/use'], 'true');
  assert.ok(deployment.spec.replicas > 1);
  assert.ok(
    pod.spec.terminationGracePeriodSeconds * 1000 > shutdownBudgetMs(r),
    'SIGKILL only after the graceful shutdown budget',
  );
  assert.deepEqual(pdb.spec.selector.matchLabels, deployment.spec.selector.matchLabels);
  assert.equal(container.args.at(-1), `${container.volumeMounts[0].mountPath}/config.yaml`);
});
