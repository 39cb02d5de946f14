import 'reflect-metadata';
import { Controller, Get, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';

/**
 * The floor of the framework: NestJS 12 on Express with one hello route, no global middleware, guard, pipe,
 * filter or log. What the app's hello costs beyond this is what its own layers cost.
 */
@Controller('health')
class HelloController {
  @Get('live')
  live() {
    return { status: 'ok' };
  }
}

@Module({ controllers: [HelloController] })
class HelloModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(HelloModule, { logger: false });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT), '127.0.0.1');
}

void main();
