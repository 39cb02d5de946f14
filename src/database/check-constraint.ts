/** The expression of a CHECK constraint that the column holds one of the values. */
export const oneOf = (column: string, values: readonly string[]): string =>
  `${column} IN (${values.map((value) => `'${value}'`).join(', ')})`;
