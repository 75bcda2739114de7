/**
 * Masks secrets in free text before it reaches a log line, an error message or the `validate` output.
 * Covers the forms an Event Hubs or Storage connection string and a SAS token take:
 * `SharedAccessKey=...`, `SharedAccessSignature=...` (a whole `SharedAccessSignature sr=...&sig=...`
 * token included), `AccountKey=...`, a URL query's `sig=...`, `Bearer <token>`, and the user-info part of a
 * URL (`http://user:password@proxy:3128` becomes `http://***@proxy:3128`).
 */

/** What replaces a secret value. */
export const REDACTED = '***';

// A connection-string value runs to the next `;` (or a quote, whitespace or the end of the text).
// `SharedAccessSignature=SharedAccessSignature sr=..&sig=..&se=..&skn=..` holds one space after the
// token type, so that form is matched first and as a whole.
const PATTERNS: readonly RegExp[] = [
  /(SharedAccessSignature\s*=\s*)SharedAccessSignature [^;"'\s]*/gi,
  /(SharedAccessKey\s*=\s*)[^;"'\s]+/gi,
  /(SharedAccessSignature\s*=\s*)[^;"'\s]+/gi,
  /(AccountKey\s*=\s*)[^;"'\s]+/gi,
  // A bare token (`SharedAccessSignature sr=...&sig=...`) or a SAS URL: the signature is the secret.
  /([?&\s]sig=)[^&;"'\s]+/gi,
  // An Entra ID access token quoted from an Authorization header.
  /(Bearer\s+)[A-Za-z0-9\-._~+/]+=*/gi,
  // Credentials in a URL (`http://user:password@proxy:3128`): the whole user-info part.
  /(\b[a-z][a-z0-9+.-]*:\/\/)[^\s/?#@'"]+(?=@)/gi,
];

/** Returns `text` with every secret value replaced by `***`; the key names stay so the reader sees what was there. */
export function redact(text: string): string {
  let out = text;
  for (const pattern of PATTERNS) out = out.replace(pattern, `$1${REDACTED}`);
  return out;
}

/** An Error's message (and cause chain's messages) redacted, for errors whose text may quote a secret. */
export function redactError(error: unknown): string {
  if (error instanceof Error) return redact(`${error.name}: ${error.message}`);
  return redact(String(error));
}

/** Longest value `quoteValue` shows. Longer values are described, not quoted. */
export const MAX_QUOTED_VALUE_LENGTH = 32;

// A run of token characters (base64, base64url, hex) with both letters and digits: the shape of a key,
// a signature or a token, even without a `key=` before it.
const TOKEN_RUN = /[A-Za-z0-9+/=_-]{16,}/g;

/**
 * A config value made safe to quote in a message (e.g. the `validate` output): `'yesterday'` for a short
 * value with nothing secret-looking in it; otherwise a description (`a 88-character value`) so that a
 * key pasted into the wrong setting never reaches the output, not even in part.
 */
export function quoteValue(value: string): string {
  const redacted = redact(value);
  const tokenLike = (redacted.match(TOKEN_RUN) ?? []).some((run) => /[A-Za-z]/.test(run) && /\d/.test(run));
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  const printable = !/[\u0000-\u001f\u007f]/.test(redacted);
  if (redacted !== value || tokenLike || !printable || value.length > MAX_QUOTED_VALUE_LENGTH) {
    return `a ${value.length}-character value`;
  }
  return `'${value}'`;
}
