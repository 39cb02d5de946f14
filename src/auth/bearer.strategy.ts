import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { Strategy } from 'passport-http-bearer';
import { TokensService } from '../tokens/tokens.service';
import type { Principal } from './principal';

/** `Authorization: Bearer <token>` → the token's principal; `false` for anything else. */
@Injectable()
export class BearerStrategy extends PassportStrategy(Strategy, 'bearer') {
  constructor(private readonly tokens: TokensService) {
    super();
  }

  async validate(token: string): Promise<Principal | false> {
    return (await this.tokens.authenticate(token)) ?? false;
  }
}
