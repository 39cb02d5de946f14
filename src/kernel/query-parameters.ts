import type { FieldErrors } from './domain-error';
import { fieldLabel } from './field-label';

/** `order_id[]=1`, `order_id[0]=1`, `order_id[x]=1`: the parameter's name, before its brackets. */
const ARRAY_STYLE = /^([^[\]]+)\[[^\]]*\]/;

/**
 * Query parameters given array-style (`order_id[]=1`) as the list of values they are, under their own name,
 * so the parameter's validator refuses them by name exactly as it refuses a repeated parameter (CONTRACT §2).
 */
export function foldArrayStyleParameters(query: Record<string, unknown>): Record<string, unknown> {
  const folded: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(query)) {
    const name = ARRAY_STYLE.exec(key)?.[1];
    if (name === undefined) {
      folded[key] = folded[key] === undefined ? value : [folded[key], value].flat();
    } else {
      folded[name] = [folded[name] ?? [], value].flat();
    }
  }
  return folded;
}

/**
 * CONTRACT §2: a query parameter given more than once, or array-style (folded into a list above), is a 400
 * naming it, with one message whatever the parameter's own rule: every query parameter takes one value.
 */
export function repeatedParameters(query: Record<string, unknown>): FieldErrors {
  return Object.fromEntries(
    Object.entries(query)
      .filter(([, value]) => Array.isArray(value))
      .map(([name]) => [name, [`The ${fieldLabel(name)} must be given once, as a single value.`]]),
  );
}
