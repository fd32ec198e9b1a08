#!/usr/bin/env node
/**
 * The second floor for `npm run bench`'s overhead section: what the gateway's required stack costs
 * before any gateway feature runs. A NestJS app on Express with the same request shape as the
 * gateway's chat-completions route and nothing else:
 *   - body-parser's JSON parser (Nest's default parsers off, no ETag, no x-powered-by: as the
 *     gateway sets Express up), one Nest controller, a global ValidationPipe (class-transformer +
 *     class-validator, whitelist) over a small DTO (model, messages[] of { role, content }, max_tokens);
 *   - the body re-serialised and POSTed to the upstream over one keep-alive undici Pool, the answer
 *     parsed and returned as JSON (Nest serialises it again);
 *   - one pino access-log line per request to stdout (asynchronous destination, as the gateway).
 * No auth, no rate limits, no reservation / settle / ledger, no metrics, no request context.
 *
 * The gateway row minus this row is what the gateway's own features cost; this row minus the bare
 * proxy's is the price of Nest + Express + class-validator + JSON round trips + a log line.
 *
 * Run as a child process: `UPSTREAM_URL=http://127.0.0.1:N node scripts/bench/nest-floor.js`; it
 * listens on 127.0.0.1 with a random port and prints one JSON line `{"port": N}` to stdout (the
 * access-log lines follow on stdout; the bench ignores them).
 */
'use strict';
require('reflect-metadata');
const { Body, Controller, Headers, HttpCode, Module, Post, ValidationPipe } = require('@nestjs/common');
const { NestFactory } = require('@nestjs/core');
const bodyParser = require('body-parser');
const { Type } = require('class-transformer');
const { ArrayMinSize, IsArray, IsIn, IsInt, IsOptional, IsString, Min, ValidateNested } = require('class-validator');
const pino = require('pino');
const { Pool } = require('undici');

/** decorators applied by hand (this file is plain JavaScript) */
const field = (cls, name, type, ...decorators) => {
  Reflect.defineMetadata('design:type', type, cls.prototype, name);
  for (const d of decorators) d(cls.prototype, name);
};

class MessageDto {}
field(MessageDto, 'role', String, IsIn(['system', 'user', 'assistant']));
field(MessageDto, 'content', String, IsString());

class ChatDto {}
field(ChatDto, 'model', String, IsString());
field(
  ChatDto,
  'messages',
  Array,
  IsArray(),
  ArrayMinSize(1),
  ValidateNested({ each: true }),
  Type(() => MessageDto),
);
field(ChatDto, 'max_tokens', Number, IsOptional(), IsInt(), Min(1));

const upstream = new Pool(process.env.UPSTREAM_URL, { connections: 128, keepAliveTimeout: 60_000, pipelining: 1 });
const log = pino({ base: undefined }, pino.destination({ dest: 1, sync: false, minLength: 0 }));

class ChatController {
  async create(body, authorization) {
    const started = performance.now();
    const { statusCode, body: answer } = await upstream.request({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { 'content-type': 'application/json', authorization },
      body: JSON.stringify(body),
    });
    const json = await answer.json();
    log.info(
      {
        method: 'POST',
        path: '/v1/chat/completions',
        status: statusCode,
        model: body.model,
        total_ms: Math.round((performance.now() - started) * 10) / 10,
      },
      'request completed',
    );
    return json;
  }
}
Reflect.defineMetadata('design:paramtypes', [ChatDto, String], ChatController.prototype, 'create');
Body()(ChatController.prototype, 'create', 0);
Headers('authorization')(ChatController.prototype, 'create', 1);
const method = Object.getOwnPropertyDescriptor(ChatController.prototype, 'create');
Post('chat/completions')(ChatController.prototype, 'create', method);
HttpCode(200)(ChatController.prototype, 'create', method);
Controller('v1')(ChatController);

class FloorModule {}
Module({ controllers: [ChatController] })(FloorModule);

async function main() {
  const app = await NestFactory.create(FloorModule, { logger: false, bodyParser: false });
  app.use(bodyParser.json({ limit: '10mb' }));
  app.disable('x-powered-by');
  app.set('etag', false);
  app.useGlobalPipes(new ValidationPipe({ whitelist: true, transform: true }));
  const server = await app.listen(0, '127.0.0.1');
  server.keepAliveTimeout = 65_000;
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
  const stop = () => {
    app
      .close()
      .then(() => upstream.close())
      .then(() => process.exit(0));
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
