/**
 * Component ids as the collector writes them: `type[/name]`, e.g. `azure_event_hub` or
 * `azure_event_hub/audit`. The type picks the factory; the name tells several instances apart.
 */
export interface ComponentId {
  readonly type: string;
  /** Empty for an id without `/name`. */
  readonly name: string;
  /** The id as written: `type` or `type/name`. */
  readonly id: string;
}

// The collector accepts letters, digits, `_` and `-` in types (and `.` in names); the first character is a letter.
const TYPE = /^[A-Za-z][A-Za-z0-9_]{0,62}$/;
const NAME = /^[A-Za-z0-9_.-]{1,1024}$/;

/** Parses `type[/name]`; returns a message saying what is wrong instead of throwing. */
export function parseComponentId(id: string): ComponentId | { readonly error: string } {
  const slash = id.indexOf('/');
  const type = slash === -1 ? id : id.slice(0, slash);
  const name = slash === -1 ? '' : id.slice(slash + 1);
  if (!TYPE.test(type))
    return {
      error: `'${id}' is not a component id: the type must start with a letter and hold only letters, digits and '_'`,
    };
  if (slash !== -1 && !NAME.test(name))
    return {
      error:
        `'${id}' is not a component id: the name after '/' must be non-empty and hold only letters, digits, ` +
        `'_', '-' and '.'`,
    };
  return { type, name, id };
}

export function isComponentIdError(
  value: ComponentId | { readonly error: string },
): value is { readonly error: string } {
  return 'error' in value;
}
