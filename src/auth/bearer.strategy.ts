import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { Request } from 'express';
import { Strategy } from 'passport-http-bearer';
import { TokensService } from '../tokens/tokens.service';
import type { Principal } from '../kernel/access/principal';

/**
 * `Authorization: Bearer <token>` → the token's principal; `false` for anything else. passport-http-bearer also
 * reads an `access_token` query parameter (RFC 6750 §2.3); a token in a URL ends up in proxies' and browsers'
 * logs, so only the header is taken.
 */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokensService) {
    super({ passReqToCallback: true });
  }

  async validate(request: Request, token: string): Promise<Principal | false> {
    if (!/^bearer /i.test(request.headers.authorization ?? '')) return false;
    return (await this.tokens.authenticate(token)) ?? false;
  }
}
