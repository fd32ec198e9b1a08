import type { INestApplication } from '@nestjs/common';
import { DocumentBuilder, OpenAPIObject, OperationObject, SwaggerModule } from '@nestjs/swagger';
import { ErrorResponseDto, METRICS_SECURITY } from '@app/common';
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
  const document = SwaggerModule.createDocument(app, info, { extraModels: [ErrorResponseDto] });
  declareErrorResponses(document);
  openPassThroughSchemas(document);
  return document;
}

/**
 * Claude models answer /v1/messages with the upstream's own message, passed through so that members
 * Anthropic adds later keep reaching the client: those schemas list the known members and admit others.
 */
const PASS_THROUGH_SCHEMAS = ['MessageResponseDto', 'MessagesUsageDto'];

function openPassThroughSchemas(document: OpenAPIObject): void {
  for (const name of PASS_THROUGH_SCHEMAS) {
    const schema = document.components?.schemas?.[name];
    if (schema && !('$ref' in schema)) schema.additionalProperties = true;
  }
}

const ERROR_SCHEMA = { $ref: `#/components/schemas/${ErrorResponseDto.name}` };
/** The Anthropic-compatible paths answer errors in Anthropic's shape. */
const ANTHROPIC_PATHS = /^\/v1\/messages(\/|$)/;
const ANTHROPIC_ERROR_SCHEMA = { $ref: '#/components/schemas/MessagesErrorDto' };

/** Error answers every operation of a kind can give, whatever its controller declares. */
const GENERIC_ERRORS: { status: string; description: string; applies: (op: OperationObject) => boolean }[] = [
  {
    status: '400',
    description: 'Invalid request: the message names the problem and `param` the field',
    applies: (op) => Boolean(op.requestBody) || (op.parameters ?? []).some((p) => 'in' in p && p.in !== 'header'),
  },
  {
    status: '401',
    description: 'Missing, unknown or revoked API key',
    applies: (op) => (op.security ?? []).length > 0,
  },
  {
    status: '404',
    description: 'The resource does not exist or belongs to another team',
    applies: (op) => (op.parameters ?? []).some((p) => 'in' in p && p.in === 'path'),
  },
  { status: '413', description: 'Request body too large', applies: (op) => Boolean(op.requestBody) },
  { status: '500', description: 'Internal error (logged with the request id; no detail is sent)', applies: () => true },
  {
    status: '503',
    description: 'The database cannot be reached right now (Retry-After)',
    applies: (op) => (op.security ?? []).length > 0,
  },
];

/**
 * Every operation declares its error answers with the one error schema: those its controller
 * declares (a description only, or a schema of its own such as /ready's), plus the generic ones
 * that follow from its shape — 400 with a body or parameters, 404 with a path parameter, 413 with a
 * body, 401/503 when it authenticates, 500 everywhere.
 */
function declareErrorResponses(document: OpenAPIObject): void {
  for (const [path, item] of Object.entries(document.paths)) {
    const schema = ANTHROPIC_PATHS.test(path) ? ANTHROPIC_ERROR_SCHEMA : ERROR_SCHEMA;
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const op = item[method];
      if (!op) continue;
      for (const g of GENERIC_ERRORS) {
        if (!op.responses[g.status] && g.applies(op)) op.responses[g.status] = { description: g.description };
      }
      for (const [status, response] of Object.entries(op.responses)) {
        if (!response || /^[2-3]/.test(status) || '$ref' in response || response.content) continue;
        response.content = { 'application/json': { schema } };
      }
      op.responses = Object.fromEntries(Object.entries(op.responses).sort(([a], [b]) => a.localeCompare(b)));
    }
  }
}
