import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import { DOCS_PATH } from './public-url';

/** The OpenAPI 3 document, generated from the controllers and DTOs, at /api/docs (UI) and /api/docs-json. */
export function setupOpenApi(app: INestApplication, publicBaseUrl: string | undefined): void {
  const builder = new DocumentBuilder()
    .setTitle('Restaurant Orders API')
    .setDescription(
      'Partner companies place orders for products delivered to restaurant and merchant addresses, follow them ' +
        'through logistics, comment on and correct them. Every /api/v2 route needs `Authorization: Bearer <token>`.',
    )
    .setVersion('2')
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'API token issued by an administrator.' });
  if (publicBaseUrl) builder.addServer(publicBaseUrl);
  const document = SwaggerModule.createDocument(app, builder.build());
  SwaggerModule.setup(DOCS_PATH.slice(1), app, document, { jsonDocumentUrl: `${DOCS_PATH.slice(1)}-json` });
}
