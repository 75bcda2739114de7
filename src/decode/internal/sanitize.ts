import type { BuiltinSanitizer } from '../decoder.ts';

/** A repair step: text in, text out. Linear time; applied only after JSON.parse failed. */
export type Sanitizer = (text: string) => string;

const QUOTE = 34; // "
const APOSTROPHE = 39; // '
const BACKSLASH = 92;

/** JSON escape for a control character (U+0000–U+001F), which JSON forbids raw inside strings. */
function escapeControl(c: number): string {
  switch (c) {
    case 10:
      return '\\n';
    case 13:
      return '\\r';
    case 9:
      return '\\t';
    case 8:
      return '\\b';
    case 12:
      return '\\f';
    default:
      return `\\u${c.toString(16).padStart(4, '0')}`;
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_CHARACTER = /[\u0000-\u001f]/;

/**
 * `new_lines`: escapes raw newlines, tabs and other control characters inside double-quoted strings.
 * Producers that build JSON by string concatenation (stack traces in App Service console logs) emit them.
 * One pass; untouched text is copied as slices.
 */
export function escapeControlCharsInStrings(text: string): string {
  // Most texts that reach a repair have no control character at all (single-quoted JSON): one regular
  // expression scan, several times faster than the walk below, answers for them.
  if (!CONTROL_CHARACTER.test(text)) return text;
  let out = '';
  let copied = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (!inString) {
      if (c === QUOTE) inString = true;
      continue;
    }
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) inString = false;
    else if (c < 0x20) {
      out += text.slice(copied, i) + escapeControl(c);
      copied = i + 1;
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/**
 * Whether the apostrophe just before `at` closes a single-quoted string. Azure Functions writes messages
 * such as `'Executing 'Functions.Run' (Reason='Timer fired', Id=…)'` without escaping the inner quotes,
 * so an apostrophe only closes when JSON structure follows: `:` `}` `]`, the end, or a comma followed by
 * the next key or element (a quote or a bracket). Anything else is a literal apostrophe.
 */
function closesString(text: string, at: number): boolean {
  let j = at;
  while (j < text.length && isSpace(text.charCodeAt(j))) j++;
  if (j >= text.length) return true;
  const c = text.charCodeAt(j);
  if (c === 58 || c === 125 || c === 93) return true; // : } ]
  if (c !== 44) return false; // ,
  j++;
  while (j < text.length && isSpace(text.charCodeAt(j))) j++;
  if (j >= text.length) return true;
  const n = text.charCodeAt(j);
  return n === APOSTROPHE || n === QUOTE || n === 123 || n === 91; // ' " { [
}

/**
 * `single_quotes`: rewrites single-quoted JSON, as Azure Functions puts it in its `properties`
 * (`{'appName':'fn','message':'Executed 'Functions.Run' (Succeeded)'}`), into double-quoted JSON:
 * delimiting apostrophes become `"`, inner `"` become `\"`, `\'` becomes `'`, control characters are
 * escaped. Double-quoted strings pass through untouched. One pass, linear in the text length.
 */
export function convertSingleQuotedStrings(text: string): string {
  let out = '';
  let copied = 0;
  let state: 0 | 1 | 2 = 0; // 0 structure, 1 in "string", 2 in 'string'
  const emit = (at: number, replacement: string, skip: number): void => {
    out += text.slice(copied, at) + replacement;
    copied = at + skip;
  };
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (state === 0) {
      if (c === QUOTE) state = 1;
      else if (c === APOSTROPHE) {
        emit(i, '"', 1);
        state = 2;
      }
    } else if (state === 1) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) state = 0;
      else if (c < 0x20) emit(i, escapeControl(c), 1);
    } else if (c === BACKSLASH) {
      if (text.charCodeAt(i + 1) === APOSTROPHE) {
        emit(i, "'", 2);
      }
      i++;
    } else if (c === QUOTE) {
      emit(i, '\\"', 1);
    } else if (c === APOSTROPHE) {
      if (closesString(text, i + 1)) {
        emit(i, '"', 1);
        state = 0;
      }
    } else if (c < 0x20) {
      emit(i, escapeControl(c), 1);
    }
  }
  return copied === 0 ? text : out + text.slice(copied);
}

const BUILTIN: Readonly<Record<BuiltinSanitizer, Sanitizer>> = {
  new_lines: escapeControlCharsInStrings,
  single_quotes: convertSingleQuotedStrings,
};

/** Default built-in repairs, in the order they are tried. */
export const DEFAULT_BUILTIN_SANITIZERS: readonly BuiltinSanitizer[] = ['new_lines', 'single_quotes'];

/**
 * Builds the sanitizer chain: the built-ins, then each configured regex (global, replacement with `$1`
 * references as in String.prototype.replace). An invalid regex throws here, at configuration time.
 */
export function buildSanitizers(
  builtins: readonly BuiltinSanitizer[],
  regexes: readonly { readonly pattern: string; readonly replacement: string }[],
): Sanitizer[] {
  const chain: Sanitizer[] = [];
  for (const name of builtins) {
    const fn = BUILTIN[name];
    if (!fn)
      throw new Error(`unknown built-in sanitizer "${String(name)}" (known: ${Object.keys(BUILTIN).join(', ')})`);
    chain.push(fn);
  }
  regexes.forEach(({ pattern, replacement }, index) => {
    let regex: RegExp;
    try {
      regex = new RegExp(pattern, 'g');
    } catch (error) {
      throw new Error(`sanitizers[${index}].pattern is not a valid regular expression: ${(error as Error).message}`, {
        cause: error,
      });
    }
    chain.push((text) => text.replace(regex, replacement));
  });
  return chain;
}
