import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import { METRICS_SECURITY } from '@app/common';
import { CSRF_HEADER, SECURITY, SESSION_COOKIE } from '@app/auth';

/**
 * The gateway's OpenAPI document, built from the controllers' and DTOs' metadata only: no provider is
 * called, so it can be built from an app that never connected to a database (see openapi-cli.ts).
 * Served at /docs-json and committed as docs/openapi.json.
 */
export function buildOpenApiDocument(app: INestApplication): OpenAPIObject {
  const info = new DocumentBuilder()
    .setTitle('Model gateway')
    .setDescription(
      'One API for chat, embeddings, rerank and project retrieval across providers, priced in RUB and charged to the team balance. ' +
        'Errors always have the shape {"error":{"message","type","code","param"}}.',
    )
    .setVersion('1')
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'api-key', description: 'api-key: <API_KEY>' },
      SECURITY.apiKeyHeader,
    )
    .addBearerAuth({ type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <API_KEY>' }, SECURITY.bearer)
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'Authorization', description: 'Authorization: api-key <API_KEY>' },
      SECURITY.authorizationApiKey,
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <ADMIN_TOKEN>' },
      SECURITY.admin,
    )
    .addCookieAuth(
      SESSION_COOKIE,
      {
        type: 'apiKey',
        in: 'cookie',
        name: SESSION_COOKIE,
        description: 'The session cookie set by POST /api/v1/auth/login (HttpOnly, SameSite=Lax)',
      },
      SECURITY.session,
    )
    .addApiKey(
      {
        type: 'apiKey',
        in: 'header',
        name: CSRF_HEADER,
        description:
          'With the session cookie, every state-changing request carries the csrf_token of sign-in (or GET /api/v1/auth/me); else 403 csrf_failed',
      },
      SECURITY.csrf,
    )
    .addBearerAuth(
      {
        type: 'http',
        scheme: 'bearer',
        description: 'Authorization: Bearer <METRICS_TOKEN> (only when METRICS_TOKEN is set)',
      },
      METRICS_SECURITY,
    )
    .build();
  return SwaggerModule.createDocument(app, info);
}
