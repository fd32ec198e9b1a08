import { Writable } from 'node:stream';
import { Controller, Get, Logger, Module } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { NestExpressApplication } from '@nestjs/platform-express';
import { pinoHttp } from 'pino-http';
import request from 'supertest';
import { AppConfig, ConfigModule } from '@app/config';
import { AppLogger, LoggingModule, PINO_HTTP, pinoHttpOptions } from './logging.module';
import { bindRequestScope } from './request-scope';

@Controller()
class ProbeController {
  private readonly logger = new Logger('Probe');

  @Get('probe')
  probe(): { ok: true } {
    this.logger.log('plain message');
    this.logger.warn({ sql: 'SELECT 1', timeMs: 7 }, 'slow query');
    this.logger.error(new Error('boom'));
    return { ok: true };
  }

  @Get('health')
  health(): { ok: true } {
    return { ok: true };
  }
}

@Module({ controllers: [ProbeController] })
class ProbeModule {}

/**
 * The pino integration as the service wires it (LoggingModule + AppLogger through app.useLogger):
 * Nest `Logger` lines inside a request carry that request's id, pino-http writes no completion line
 * of its own (the access line is the RequestObserver's, see test/observability/access-log.e2e-spec.ts),
 * secrets stay out, and lines outside a request go to the root logger.
 */
describe('LoggingModule', () => {
  let app: NestExpressApplication;
  const lines: Record<string, unknown>[] = [];

  beforeAll(async () => {
    const config = AppConfig.fromEnv({ LOG_LEVEL: 'info' });
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const l of chunk.toString('utf8').split('\n')) if (l) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    const moduleRef = await Test.createTestingModule({
      imports: [ConfigModule.forRoot(config), LoggingModule.forRoot(), ProbeModule],
    })
      .overrideProvider(PINO_HTTP)
      .useValue(pinoHttp(pinoHttpOptions(config), sink))
      .compile();
    app = moduleRef.createNestApplication<NestExpressApplication>({ bufferLogs: true });
    app.useLogger(app.get(AppLogger));
    app.use(bindRequestScope); // as setupApp mounts it
    await app.init();
  });
  afterAll(() => app?.close());
  beforeEach(() => {
    lines.length = 0;
  });

  it('binds the request (and its id) to every line written while handling the request', async () => {
    const res = await request(app.getHttpServer())
      .get('/probe?sig=secret-signature')
      .set('x-request-id', 'trace-42')
      .set('authorization', 'Bearer sk-secret-value');
    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('trace-42');

    // pino-http's request logger: every line carries the serialized request, whose id is the request id
    const req = { id: 'trace-42', method: 'GET', url: '/probe' };
    expect(lines.find((l) => l.msg === 'plain message')).toMatchObject({ level: 30, req, context: 'Probe' });
    expect(lines.find((l) => l.msg === 'slow query')).toMatchObject({
      level: 40,
      req,
      context: 'Probe',
      sql: 'SELECT 1',
      timeMs: 7,
    });
    expect(lines.find((l) => l.level === 50)).toMatchObject({
      req,
      context: 'Probe',
      msg: 'boom',
      err: { message: 'boom', stack: expect.stringContaining('Error: boom') },
    });
    expect(lines.find((l) => l.msg === 'request completed')).toBeUndefined();
    expect(lines).toHaveLength(3);
    expect(JSON.stringify(lines)).not.toContain('sk-secret-value');
    // the request is serialized with its path only
    expect(JSON.stringify(lines)).not.toContain('secret-signature');
  });

  it('generates an id when the caller sends none or an unusable one', async () => {
    const res = await request(app.getHttpServer()).get('/probe').set('x-request-id', 'bad id with spaces');
    const id = res.headers['x-request-id'];
    expect(id).toMatch(/^req_[0-9a-f]{32}$/);
    expect(lines.map((l) => (l.req as { id: string }).id)).toEqual([id, id, id]);
  });

  it('does not auto-log (not even /health)', async () => {
    await request(app.getHttpServer()).get('/health').expect(200);
    expect(lines.filter((l) => l.msg === 'request completed')).toEqual([]);
  });

  it('logs outside a request through the root logger, without a request id', () => {
    new Logger('Boot').log('outside');
    new Logger('Boot').error('failed', 'Error: failed\n    at somewhere (file.ts:1:1)');
    const outside = lines.find((l) => l.msg === 'outside');
    expect(outside).toMatchObject({ level: 30, context: 'Boot' });
    expect(outside).not.toHaveProperty('req');
    // Nest's exception handlers call error(message, stack): logged as an err carrying that stack
    expect(lines.find((l) => l.level === 50)).toMatchObject({
      context: 'Boot',
      err: { message: 'failed', stack: expect.stringContaining('at somewhere') },
    });
  });
});
