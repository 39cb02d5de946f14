/** Who makes a change, as the audit trail records it. */
export interface Actor {
  /** null for the CLI (the operator at the machine). */
  tokenId: number | null;
  userName: string;
  requestId: string | null;
}
