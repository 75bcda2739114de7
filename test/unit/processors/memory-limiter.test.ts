import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDataRefused, isPermanentError } from '../../../src/component/errors.ts';
import { MemoryLimiter } from '../../../src/processors/memory-limiter.ts';
import { memoryLimiterConfigSchema, resolveMemoryLimits } from '../../../src/processors/memory-limiter-config.ts';
import { readCgroupLimitBytes, readMemoryTotal } from '../../../src/pipeline/memory-usage.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { makeBatch, makeMixedBatch } from '../pipeline/records.ts';

const MIB = 1024 * 1024;

function issues(input: unknown): string[] {
  const r = memoryLimiterConfigSchema.safeParse(input);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
}

test("config: the collector's validation, each problem with its key", () => {
  const empty = issues({});
  assert.ok(
    empty.some((i) => i.startsWith('check_interval: must be greater than zero')),
    empty.join('\n'),
  );
  assert.ok(empty.some((i) => i.startsWith('limit_mib: limit_mib or limit_percentage must be greater than zero')));
  assert.deepEqual(issues({ check_interval: '1s', limit_mib: 100 }), []);
  assert.deepEqual(issues({ check_interval: '1s', limit_percentage: 80, spike_limit_percentage: 25 }), []);
  assert.match(
    issues({ check_interval: '1s', limit_mib: 100, spike_limit_mib: 100 })[0]!,
    /^spike_limit_mib: \(100\) must be smaller than limit_mib \(100\)/,
  );
  assert.match(
    issues({ check_interval: '1s', limit_percentage: 50, spike_limit_percentage: 60 })[0]!,
    /^spike_limit_percentage: \(60\) must be smaller than limit_percentage/,
  );
  assert.match(
    issues({ check_interval: '1s', limit_percentage: 120 })[0]!,
    /^limit_percentage: \(120\) must be at most 100/,
  );
  assert.match(issues({ check_interval: '0s', limit_mib: 10 })[0]!, /^check_interval: must be greater than zero/);
  assert.match(
    issues({ check_interval: '1s', limit_mib: 10, min_gc_interval_when_hard_limited: '20s' })[0]!,
    /^min_gc_interval_when_soft_limited: /,
  );
  assert.match(issues({ check_interval: '1s', limit_mib: -1 })[0]!, /^limit_mib: /);
  assert.match(issues({ check_interval: '1s', limit_mib: 10, ballast: 1 })[0]!, /ballast/);
});

test('limits: limit_mib wins over percentages; the spike defaults to a fifth of the limit', () => {
  const parse = (c: object) => memoryLimiterConfigSchema.parse({ check_interval: '1s', ...c });
  const total = () => ({ bytes: 1000 * MIB, source: 'cgroup' as const });
  assert.deepEqual(resolveMemoryLimits(parse({ limit_mib: 100 }), total), {
    hardLimitBytes: 100 * MIB,
    softLimitBytes: 80 * MIB,
  });
  assert.deepEqual(resolveMemoryLimits(parse({ limit_mib: 100, spike_limit_mib: 30, limit_percentage: 10 }), total), {
    hardLimitBytes: 100 * MIB,
    softLimitBytes: 70 * MIB,
  });
  const pct = resolveMemoryLimits(parse({ limit_percentage: 80, spike_limit_percentage: 25 }), total);
  assert.equal(pct.hardLimitBytes, 800 * MIB);
  assert.equal(pct.softLimitBytes, 550 * MIB);
  assert.equal(pct.total?.source, 'cgroup');
  assert.equal(resolveMemoryLimits(parse({ limit_percentage: 50 }), total).softLimitBytes, 400 * MIB);
});

test('memory total: the smaller of the cgroup limit and the V8 heap limit; cgroup "max" is no limit', () => {
  const files = (map: Record<string, string>) => (path: string) => {
    if (path in map) return map[path]!;
    throw new Error('ENOENT');
  };
  const v2 = readCgroupLimitBytes(files({ '/sys/fs/cgroup/memory.max': '536870912\n' }));
  const noLimit = readCgroupLimitBytes(
    files({
      '/sys/fs/cgroup/memory.max': 'max\n',
      '/sys/fs/cgroup/memory/memory.limit_in_bytes': '9223372036854771712',
    }),
  );
  // Node's own reading (process.constrainedMemory) comes first; on a host without a limit it says none.
  const nodeSays = (process as { constrainedMemory?: () => number }).constrainedMemory?.() ?? 0;
  if (!(nodeSays > 0 && nodeSays < 2 ** 60)) {
    assert.equal(v2, 512 * MIB);
    assert.equal(noLimit, undefined);
    assert.equal(
      readCgroupLimitBytes(files({ '/sys/fs/cgroup/memory/memory.limit_in_bytes': '268435456' })),
      256 * MIB,
    );
  }
  assert.deepEqual(readMemoryTotal(64 * MIB), { bytes: 64 * MIB, source: 'cgroup' });
  assert.equal(readMemoryTotal(undefined).source, 'heap_limit');
  assert.equal(readMemoryTotal(2 ** 50).source, 'heap_limit');
});

test('above the soft limit it refuses retryably until a check finds usage below it; below, batches pass', async () => {
  let usage = 50 * MIB;
  const next = new InMemorySignalConsumer();
  const limiter = new MemoryLimiter(next, {
    checkIntervalMs: 60_000,
    hardLimitBytes: 100 * MIB,
    softLimitBytes: 80 * MIB,
    readUsage: () => usage,
    gc: undefined,
  });
  try {
    await limiter.consume(makeBatch(3));
    assert.equal(next.records().length, 3);
    usage = 90 * MIB;
    assert.equal(limiter.check(), true);
    const refusal = await limiter.consume(makeBatch(4)).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isDataRefused(refusal), 'a DataRefusedError');
    assert.equal(isPermanentError(refusal), false, 'retryable');
    assert.match((refusal as Error).message, /data refused due to high memory usage/);
    assert.equal(next.records().length, 3, 'nothing passed while refusing');
    usage = 79 * MIB;
    assert.equal(limiter.check(), false);
    await limiter.consume(makeBatch(2));
    assert.equal(next.records().length, 5);
    const s = limiter.stats();
    assert.deepEqual([s.refusedBatches, s.refusedRecords, s.maxUsageBytes, s.forcedGcs], [1, 4, 90 * MIB, 0]);
    // Metric points and spans pass and are refused like records, and count as items.
    await limiter.consume(makeMixedBatch(0, 2, 1));
    assert.equal(next.metricPoints().length + next.spans().length, 3);
    usage = 95 * MIB;
    limiter.check();
    await assert.rejects(limiter.consume(makeMixedBatch(1, 2, 3)), (e: unknown) => isDataRefused(e));
    assert.equal(limiter.stats().refusedRecords, 4 + 6, 'items of every signal are counted');
  } finally {
    await limiter.shutdown();
  }
});

test(
  'above the hard limit a check forces a collection and measures again; above the soft one at most every ' + 'interval',
  async () => {
    let usage = 120 * MIB;
    let gcs = 0;
    let now = 0;
    let afterGc = 70 * MIB;
    const limiter = new MemoryLimiter(new InMemorySignalConsumer(), {
      checkIntervalMs: 60_000,
      hardLimitBytes: 100 * MIB,
      softLimitBytes: 80 * MIB,
      minGcIntervalSoftMs: 10_000,
      readUsage: () => usage,
      gc: () => {
        gcs++;
        usage = afterGc;
      },
      now: () => now,
    });
    try {
      assert.equal(gcs, 1, 'the first check (at construction) was above the hard limit');
      assert.equal(limiter.stats().refusing, false, 'the collection brought usage below the soft limit');
      usage = 90 * MIB;
      afterGc = 85 * MIB;
      now = 5_000;
      assert.equal(limiter.check(), true);
      assert.equal(gcs, 1, 'soft: not within 10 s of the last collection');
      now = 10_000;
      usage = 90 * MIB;
      assert.equal(limiter.check(), true);
      assert.equal(gcs, 2, 'soft: collected once the interval passed, still above');
      usage = 150 * MIB;
      afterGc = 60 * MIB;
      now = 10_001;
      assert.equal(limiter.check(), false, 'hard: collected at once (min interval 0) and accepting again');
      assert.equal(gcs, 3);
    } finally {
      await limiter.shutdown();
    }
  },
);

test('without an exposed gc it still refuses, and never throws on the timer', async () => {
  const limiter = new MemoryLimiter(new InMemorySignalConsumer(), {
    checkIntervalMs: 5,
    hardLimitBytes: 10,
    softLimitBytes: 5,
    readUsage: () => 100,
    gc: undefined,
  });
  try {
    const before = limiter.stats().checks;
    await new Promise((r) => setTimeout(r, 30));
    assert.ok(limiter.stats().checks > before, 'the timer checks');
    assert.equal(limiter.stats().refusing, true);
    assert.equal(limiter.stats().forcedGcs, 0);
  } finally {
    await limiter.shutdown();
  }
});
