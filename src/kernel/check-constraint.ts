/** The SQL expression that a column holds one of the values (CHECK constraints, the order JSON's `editable`). */
export const oneOf = (column: string, values: readonly string[]): string =>
  `${column} IN (${values.map((value) => `'${value}'`).join(', ')})`;
