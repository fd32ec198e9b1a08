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
import { ApiKeysService, authBeforeBody, AuthThrottle, SECURITY } from '@app/auth';

/** Everything main.ts applies to the app, shared with the e2e tests so they test the real thing. */
export function setupApp(app: NestExpressApplication): INestApplication {
  const config = app.get(AppConfig);
  app.useLogger(app.get(AppLogger));
  // order matters: request id + metrics + access log first (they see every request, refused ones too),
  // then authenticate from the headers, then read and parse the body, then refuse hostile input
  app.use(app.get(RequestObserver).middleware());
  // the client address of the auth throttle (and req.ip): X-Forwarded-For only from trusted proxies
  if (config.trustProxy !== undefined) app.set('trust proxy', config.trustProxy);
  app.use(authBeforeBody(app.get(ApiKeysService), config, app.get(AuthThrottle)));
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
        'Errors have the shape {"error":{"message","type","code","param"}} — on the Anthropic-compatible /v1/messages paths Anthropic\'s {"type":"error","error":{"type","message"}}.',
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
    .addApiKey(
      { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'x-api-key: <API_KEY>' },
      SECURITY.xApiKey,
    )
    .addBearerAuth(
      { type: 'http', scheme: 'bearer', description: 'Authorization: Bearer <ADMIN_TOKEN>' },
      SECURITY.admin,
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
