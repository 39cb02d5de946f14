export const ROLES = ['partner', 'admin', 'logistics'] as const;
export type Role = (typeof ROLES)[number];

/** Who a request acts as: resolved from its bearer token, never from the request's own data. */
export interface Principal {
  tokenId: number;
  role: Role;
  userName: string;
  /** Set for partner tokens (and only for them): every partner query is scoped by it. */
  companyId: number | null;
  /** A read-only token may call only the routes that change nothing (GET, HEAD): the access guard refuses the rest. */
  readOnly: boolean;
}
