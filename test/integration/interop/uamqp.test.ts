/**
 * azure-uamqp-c through Debian's python3-uamqp 1.5.3 (the AMQP layer of the older Azure Python SDKs), used
 * as shipped: AMQPS (uamqp always wraps TCP in TLS), SASL MSSBCBS and a $cbs put-token per client
 * (SASTokenAuth), SendClient, ReceiveClient with a selector filter (uamqp writes its descriptor as the
 * symbol apache.org:selector-filter:string, as the uamqp-era azure-eventhub SDK did), mgmt_request.
 */
import { interopSuite } from './interop-suite.ts';

interopSuite({
  title: 'azure-uamqp-c (python3-uamqp) against the emulator',
  modules: ['uamqp'],
  script: 'uamqp_client.py',
  name: 'uamqp',
  // uamqp decodes values to Python ones: strings (and symbols) to bytes, longs and ints to int.
  types: { string: 'bytes', long: 'int', int: 'int', timestamp: 'int', statusCode: 'int' },
  tls: true,
});
