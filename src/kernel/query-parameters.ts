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
