import { Module } from '@nestjs/common';
import { APP_GUARD } from '@nestjs/core';
import { RateLimitGuard } from '../rate-limit/rate-limit.guard';
import { RateLimitModule } from '../rate-limit/rate-limit.module';
import { TokensModule } from '../tokens/tokens.module';
import { AccessGuard } from './access.guard';
import { AuthenticationGuard } from './authentication.guard';
import { BearerStrategy } from './bearer.strategy';
import { RouteAccess } from '../kernel/access/route-access';

/**
 * The global guards, in this order (Nest runs them as listed): who is calling, whether their budget allows
 * another request, whether they may call this route.
 */
@Module({
  imports: [TokensModule, RateLimitModule],
  providers: [
    BearerStrategy,
    RouteAccess,
    { provide: APP_GUARD, useClass: AuthenticationGuard },
    { provide: APP_GUARD, useClass: RateLimitGuard },
    { provide: APP_GUARD, useClass: AccessGuard },
  ],
})
export class AuthModule {}
