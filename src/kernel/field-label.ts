/** Spells a DTO field name the way messages show it: user_name → "user name". */
export const fieldLabel = (property: string) => property.replace(/_/g, ' ');
