import { test } from 'node:test';
import assert from 'node:assert/strict';
import { availableParallelism } from 'node:os';
import { cgroupQuota, usableCores } from '../../../src/component/usable-cores.ts';

const files = (map: Record<string, string>) => (path: string) => map[path];

test('a cgroup v2 quota caps the cores, rounded up; "max" or no file means no cap', () => {
  assert.equal(cgroupQuota(files({ '/sys/fs/cgroup/cpu.max': '150000 100000\n' })), 1.5);
  assert.equal(usableCores(files({ '/sys/fs/cgroup/cpu.max': '50000 100000\n' })), 1);
  assert.equal(
    usableCores(files({ '/sys/fs/cgroup/cpu.max': `${150000 * availableParallelism()} 100000` })),
    availableParallelism(),
  );
  assert.equal(cgroupQuota(files({ '/sys/fs/cgroup/cpu.max': 'max 100000' })), undefined);
  assert.equal(usableCores(files({})), availableParallelism());
});

test('a cgroup v1 quota counts too; -1 means none', () => {
  const v1 = (quota: string) =>
    files({ '/sys/fs/cgroup/cpu/cpu.cfs_quota_us': quota, '/sys/fs/cgroup/cpu/cpu.cfs_period_us': '100000' });
  assert.equal(cgroupQuota(v1('200000')), 2);
  assert.equal(cgroupQuota(v1('-1')), undefined);
});
