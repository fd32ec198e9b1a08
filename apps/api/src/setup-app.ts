import { INestApplication } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import {
  answerClientErrorsAsJson,
  ApiExceptionFilter,
  AppLogger,
  bindRequestScope,
  createValidationPipe,
  jsonBodyParsers,
  rejectHostileInput,
  RequestObserver,
} from '@app/common';
import { AppConfig } from '@app/config';
import { ApiKeysService, authBeforeBody, AuthThrottle } from '@app/auth';
import { AccountsService, sessionMiddleware } from '@app/accounts';
import { buildOpenApiDocument } from './openapi-document';

/** Everything main.ts applies to the app, shared with the e2e tests so they test the real thing. */
export function setupApp(app: NestExpressApplication): INestApplication {
  const config = app.get(AppConfig);
  app.useLogger(app.get(AppLogger));
  // order matters: request id + metrics + access log first (they see every request, refused ones too),
  // then authenticate from the headers, then read and parse the body, then refuse hostile input, then open the request's scope
  app.use(app.get(RequestObserver).middleware());
  // the client address of the auth throttle (and req.ip): X-Forwarded-For only from trusted proxies
  if (config.trustProxy !== undefined) app.set('trust proxy', config.trustProxy);
  app.use(sessionMiddleware(app.get(AccountsService)));
  app.use(authBeforeBody(app.get(ApiKeysService), config, app.get(AuthThrottle)));
  app.use(jsonBodyParsers(config.bodyLimitBytes));
  app.use(rejectHostileInput);
  // the request's scope (its log lines, the actor of audit records): opened once the body is read
  app.use(bindRequestScope);
  answerClientErrorsAsJson(app.getHttpServer());
  app.useGlobalPipes(createValidationPipe());
  app.useGlobalFilters(new ApiExceptionFilter());
  app.disable('x-powered-by');
  app.set('etag', false);

  const document = buildOpenApiDocument(app);
  SwaggerModule.setup('docs', app, document, { jsonDocumentUrl: 'docs-json' });
  return app;
}
