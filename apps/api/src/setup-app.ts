import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import {
  answerClientErrorsAsJson,
  ApiExceptionFilter,
  AppLogger,
  createValidationPipe,
  jsonBodyParsers,
  METRICS_SECURITY,
  rejectHostileInput,
  RequestObserver,
} from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeysService, authBeforeBody, CSRF_HEADER, SECURITY, SESSION_COOKIE } from '@app/auth';
import { AccountsService, sessionMiddleware } from '@app/accounts';

/** Everything main.ts applies to the app, shared with the e2e tests so they test the real thing. */
export function setupApp(app: NestExpressApplication): INestApplication {
  const config = app.get(AppConfig);
  app.useLogger(app.get(AppLogger));
  // order matters: request id + metrics + access log first (they see every request, refused ones too),
  // then authenticate from the headers, then read and parse the body, then refuse hostile input
  app.set('trust proxy', config.trustProxy);
  app.use(app.get(RequestObserver).middleware());
  app.use(sessionMiddleware(app.get(AccountsService)));
  app.use(authBeforeBody(app.get(ApiKeysService), config));
  app.use(jsonBodyParsers(config.bodyLimitBytes));
  app.use(rejectHostileInput);
  answerClientErrorsAsJson(app.getHttpServer());
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new ApiExceptionFilter());
  app.disable('x-powered-by');
  app.set('etag', false);

  const doc = new DocumentBuilder()
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
  const document = SwaggerModule.createDocument(app, doc);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  return app;
}
