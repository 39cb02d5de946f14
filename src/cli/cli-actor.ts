import { userInfo } from 'node:os';
import type { Actor } from '../kernel/access/actor';

/** Changes made with the CLI are recorded as the operator at the machine, with no token. */
export function cliActor(): Actor {
  return { tokenId: null, userName: `cli:${userInfo().username}`, requestId: null };
}
