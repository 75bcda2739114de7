/**
 * Apache Qpid Proton (Debian's python3-qpid-proton 0.37, used as shipped) against the emulator, over plain
 * TCP and over AMQPS (the test's certificate verified): SASL ANONYMOUS, $cbs put-token with SAS tokens,
 * sends, $management reads, offset filters (described by the ulong 0x468C00000004, as the service's own
 * clients write it, and proton's stock `Selector` option for the read from an offset) and not-found errors.
 */
import { interopSuite, type InteropStack } from './interop-suite.ts';

const proton: Omit<InteropStack, 'title' | 'tls'> = {
  modules: ['proton'],
  script: 'proton_client.py',
  name: 'proton',
  // Proton decodes each AMQP type to its own Python class (proton_client.py AMQP_TYPE_NAMES).
  types: { string: 'string', long: 'long', int: 'int', timestamp: 'timestamp', statusCode: 'int' },
};

interopSuite({ ...proton, title: 'Qpid Proton (python3-qpid-proton) against the emulator, plain TCP', tls: false });
interopSuite({ ...proton, title: 'Qpid Proton (python3-qpid-proton) against the emulator, AMQPS', tls: true });
