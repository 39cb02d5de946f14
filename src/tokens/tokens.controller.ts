import { Body, Controller, Delete, Get, Param, Post, Query, Req } from '@nestjs/common';
import { ApiBearerAuth, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import type { Actor } from '../kernel/access/actor';
import { CurrentActor, Roles } from '../kernel/access/access.decorators';
import { ApiFormats } from '../platform/formats/api-formats';
import { idParam } from '../platform/http/id-param.pipe';
import { ApiErrorResponses, ApiPageResponse } from '../platform/openapi/openapi.decorators';
import { type Page, pageWindow } from '../kernel/pagination';
import { CreateTokenDto } from './dto/create-token.dto';
import { ListTokensQuery } from './dto/list-tokens.query';
import { RollTokenDto } from './dto/roll-token.dto';
import { IssuedTokenResponse, TokenResponse, toTokenResponse } from './dto/token.response';
import { TokenNotFoundError } from './tokens.errors';
import { TokensService } from './tokens.service';

@ApiTags('admin')
@ApiBearerAuth()
@Roles('admin')
@Controller('api/v2/admin/tokens')
export class TokensController {
  constructor(
    private readonly tokens: TokensService,
    private readonly formats: ApiFormats,
  ) {}

  /** Issues a token. The response is the only time its secret is shown. */
  @Post()
  @ApiOperation({ operationId: 'issueToken', summary: 'Issue a token' })
  @ApiErrorResponses(400, 401, 403, 413, 429)
  async issue(@CurrentActor() actor: Actor, @Body() body: CreateTokenDto): Promise<IssuedTokenResponse> {
    const expiresAt = body.expires_at ? this.formats.parseDateTime(body.expires_at) : null;
    const { token, record } = await this.tokens.issue(actor, {
      role: body.role,
      userName: body.user_name,
      companyId: body.company_id,
      expiresAt,
      readOnly: body.read_only ?? false,
    });
    return { ...toTokenResponse(record, this.formats), token };
  }

  /**
   * Gives a token a new secret, shown in this response only. The secret it replaces keeps working until
   * `previous_expires_at` (default 24 hours, at most 7 days ahead), then gets 401; the token keeps its id, role,
   * company, user name, read-only flag and expiry. Revoking the token ends both secrets.
   */
  @Post(':id/roll')
  @ApiOperation({ operationId: 'rollToken', summary: 'Roll a token (a new secret, the old one for a while)' })
  @ApiErrorResponses(400, 401, 403, 404, 409, 413, 429)
  async roll(
    @CurrentActor() actor: Actor,
    @Param('id', idParam(() => new TokenNotFoundError())) id: number,
    @Body() body: RollTokenDto,
  ): Promise<IssuedTokenResponse> {
    const previousExpiresAt = body.previous_expires_at
      ? this.formats.parseDateTime(body.previous_expires_at)
      : null;
    const { token, record } = await this.tokens.roll(actor, id, previousExpiresAt);
    return { ...toTokenResponse(record, this.formats), token };
  }

  /** Lists tokens by id, optionally of one company, by user name, role or state. Secrets are never shown. */
  @Get()
  @ApiOperation({ operationId: 'listTokens', summary: 'List tokens' })
  @ApiPageResponse(TokenResponse)
  @ApiErrorResponses(400, 401, 403, 429)
  async list(@Query() query: ListTokensQuery, @Req() request: Request): Promise<Page<TokenResponse>> {
    const { offset, limit } = pageWindow(query);
    const rows = await this.tokens.list(
      { companyId: query.company_id, userName: query.user_name, role: query.role, state: query.state },
      offset,
      limit,
    );
    return this.formats.page(
      rows.map((token) => toTokenResponse(token, this.formats)),
      query,
      request,
    );
  }

  /** Revokes a token: its next request gets 401. Revoking a revoked token changes nothing. */
  @Delete(':id')
  @ApiOperation({ operationId: 'revokeToken', summary: 'Revoke a token' })
  @ApiErrorResponses(401, 403, 404, 429)
  async revoke(
    @CurrentActor() actor: Actor,
    @Param('id', idParam(() => new TokenNotFoundError())) id: number,
  ): Promise<TokenResponse> {
    return toTokenResponse(await this.tokens.revoke(actor, id), this.formats);
  }
}
