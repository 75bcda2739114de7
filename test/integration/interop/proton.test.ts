/**
 * Apache Qpid Proton (Debian's python3-qpid-proton 0.37, used as shipped) against the emulator: plain TCP,
 * SASL ANONYMOUS, $cbs put-token with SAS tokens, sends, $management reads, offset filters (described by
 * the ulong 0x468C00000004, as the service's own clients write it) and not-found errors.
 */
import { interopSuite } from './interop-suite.ts';

interopSuite({
  title: 'Qpid Proton (python3-qpid-proton) against the emulator',
  modules: ['proton'],
  script: 'proton_client.py',
  name: 'proton',
  // Proton decodes each AMQP type to its own Python class (interop_common / proton_client.py AMQP_TYPE_NAMES).
  types: { string: 'string', long: 'long', int: 'int', timestamp: 'timestamp', statusCode: 'int' },
  tls: false,
});
