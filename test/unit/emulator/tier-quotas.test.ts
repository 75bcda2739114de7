import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tierQuotas } from '../../../src/emulator/tier-quotas.ts';
import { Namespace } from '../../../src/emulator/internal/namespace.ts';
import { optionsFromArgs } from '../../../src/emulator/cli.ts';
import { CliUsageError, parseCliArgs } from '../../../src/emulator/cli-args.ts';
import { hubsFromDockerConfig } from '../../../src/emulator/docker-config.ts';

test(
  'the default namespace keeps the Docker emulator limit of 1 to 32 partitions and names the tier that allows ' +
    'more',
  () => {
    const ns = new Namespace([]);
    assert.equal(ns.add({ name: 'a', partitions: 32 }).partitionIds.length, 32);
    assert.throws(
      () => ns.add({ name: 'b', partitions: 33 }),
      /from 1 to 32 \(tier emulator\), got 33 \(.*tier premium\)/,
    );
    assert.throws(() => ns.add({ name: 'c', partitions: 1024 }), /tier dedicated/);
    assert.throws(() => ns.add({ name: 'd', partitions: 0 }), /from 1 to 32/);
    // No hub-count or consumer-group quota by default: the behaviour before tiers existed.
    for (let i = 0; i < 12; i++)
      ns.add({ name: `h${i}`, partitions: 1, consumerGroups: Array.from({ length: 25 }, (_, k) => `g${k}`) });
  },
);

test('a dedicated namespace takes 1024 partitions per hub, up to 2000 per capacity unit over all hubs', () => {
  const ns = new Namespace([], tierQuotas('dedicated'));
  const hub = ns.add({ name: 'big', partitions: 1024 });
  assert.equal(hub.partitionIds.length, 1024);
  assert.equal(hub.log('1023')?.partitionId, '1023');
  assert.equal(hub.log('1024'), undefined);
  assert.throws(() => ns.add({ name: 'too-big', partitions: 1025 }), /from 1 to 1024 \(tier dedicated\)/);
  assert.throws(
    () => ns.add({ name: 'second', partitions: 1000 }),
    /at most 2000 partitions over all hubs, this hub makes 2024/,
  );
  ns.add({ name: 'second', partitions: 976 });
  const two = new Namespace([], tierQuotas('dedicated', 2));
  two.add({ name: 'a', partitions: 1024 });
  two.add({ name: 'b', partitions: 1024 });
});

test('premium, standard and basic namespaces apply their partition, hub and consumer-group quotas', () => {
  const premium = new Namespace([], tierQuotas('premium'));
  premium.add({ name: 'p1', partitions: 100 });
  assert.throws(() => premium.add({ name: 'p2', partitions: 101 }), /from 1 to 100 \(tier premium\)/);
  premium.add({ name: 'p2', partitions: 100 });
  assert.throws(
    () => premium.add({ name: 'p3', partitions: 1 }),
    /at most 200 partitions over all hubs, this hub makes 201/,
  );
  assert.equal(
    new Namespace([], tierQuotas('premium', 2)).add({ name: 'x', partitions: 100 }).partitionIds.length,
    100,
  );

  const standard = new Namespace(['shared'], tierQuotas('standard'));
  assert.throws(() => standard.add({ name: 's', partitions: 33 }), /from 1 to 32 \(tier standard\)/);
  for (let i = 0; i < 10; i++) standard.add({ name: `s${i}`, partitions: 1 });
  assert.throws(() => standard.add({ name: 's10', partitions: 1 }), /at most 10 hubs/);
  const groups = Array.from({ length: 19 }, (_, k) => `g${k}`);
  assert.throws(
    () => new Namespace(['shared'], tierQuotas('standard')).add({ name: 'x', partitions: 1, consumerGroups: groups }),
    /at most 20 consumer groups \(\$Default included\), got 21/,
  );

  const basic = new Namespace([], tierQuotas('basic'));
  basic.add({ name: 'only-default', partitions: 32 });
  assert.throws(() => basic.add({ name: 'b', partitions: 1, consumerGroups: ['cg1'] }), /at most 1 consumer groups/);
});

test('--tier and --units reach the options, and the CLI validates hubs and config files against the tier', () => {
  assert.deepEqual(parseCliArgs(['--tier', 'dedicated', '--units', '2']).options, {
    tier: 'dedicated',
    capacityUnits: 2,
  });
  assert.throws(
    () => parseCliArgs(['--tier', 'gold']),
    (e: Error) => e instanceof CliUsageError && /emulator, basic, standard, premium, dedicated/.test(e.message),
  );
  assert.throws(() => parseCliArgs(['--units', '0']), /--units/);
  assert.equal(optionsFromArgs(['--tier', 'dedicated', '--hub', 'big:1024']).options.hubs?.[0]?.partitions, 1024);
  assert.throws(() => optionsFromArgs(['--hub', 'big:1024']), /from 1 to 32 .*tier dedicated/);
  assert.throws(() => optionsFromArgs(['--tier', 'premium', '--hub', 'a:100', '--hub', 'b:101']), /from 1 to 100/);
  assert.throws(
    () => optionsFromArgs(['--tier', 'premium', '--hub', 'a:100', '--hub', 'b:100', '--hub', 'c:1']),
    /at most 200 partitions/,
  );
  assert.throws(() => optionsFromArgs(['--hub', 'a:1', '--hub', 'A:2']), /declared twice/);
  const doc = { UserConfig: { NamespaceConfig: [{ Entities: [{ Name: 'eh1', PartitionCount: '1024' }] }] } };
  assert.throws(() => hubsFromDockerConfig(doc), /PartitionCount: must be an integer from 1 to 32/);
  assert.deepEqual(hubsFromDockerConfig(doc, 1024), [{ name: 'eh1', partitions: 1024, consumerGroups: [] }]);
});
