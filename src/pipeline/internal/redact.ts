/**
 * Removes secrets from text that may reach a log, an error or a dead-letter record: account keys,
 * SAS keys and signatures, whole SAS tokens and bearer tokens. Connection strings keep their shape
 * (`AccountKey=<redacted>`) so a reader still sees which setting was involved.
 */
const PATTERNS: readonly [RegExp, string][] = [
  [/((?:Shared)?AccessKey|AccountKey|SharedAccessSignature)=([^;"'\s]+)/gi, '$1=<redacted>'],
  [/([?&](?:sig|se|sv|sp|skoid|sktid|skt|ske|sks|skv|saoid|suoid|sr|st|spr|srt|ss)=)[^&"'\s]+/gi, '$1<redacted>'],
  [/(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/gi, '$1<redacted>'],
];

export function redactSecrets(text: string): string {
  let out = text;
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}
