import type { Server } from 'node:http';
import { Test } from '@nestjs/testing';
import { NestExpressApplication } from '@nestjs/platform-express';
import type { Type } from '@nestjs/common';
import { Clock } from '@app/common';
import { AppConfig } from '@app/config';
import { AppModule } from '../../apps/api/src/app.module';
import { setupApp } from '../../apps/api/src/setup-app';
import { GatewayExpressAdapter } from '../../apps/api/src/http-adapter';
import { createTestBackend, TestBackend } from './test-env';
import { ENV_PROVIDERS } from '@app/providers';
import { responseContractRecorder } from './response-contract';

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

export interface TestApp {
  app: NestExpressApplication;
  /** base URL of the listening server, e.g. http://127.0.0.1:43211 */
  url: string;
  config: AppConfig;
  backend: TestBackend;
  get<T>(token: Type<T> | string | symbol): T;
  close(): Promise<void>;
}

/** A provider replaced for the test (applied with `overrideProvider(provide).useValue(useValue)`). */
export interface ProviderOverride {
  provide: Type<unknown> | string | symbol;
  useValue: unknown;
}

/**
 * The real application (same module graph and setup as main.ts) on a fresh backend, listening on
 * 127.0.0.1 with a random port. `env` adds or overrides configuration; `clock` replaces the clock;
 * `shareBackendWith` makes a second replica on the same database (and Redis); `overrides` replaces
 * providers (e.g. `{ provide: SAFE_FETCHER_OPTIONS, useValue: { resolver, allowAddress } }`).
 */
export async function createTestApp(
  opts: {
    env?: Record<string, string>;
    clock?: Clock;
    shareBackendWith?: TestApp;
    overrides?: ProviderOverride[];
    /** listen on this port (default: a free one) */
    port?: number;
  } = {},
): Promise<TestApp> {
  const shared = opts.shareBackendWith?.backend;
  const backend = shared ? { ...shared, cleanup: async () => undefined } : await createTestBackend();
  const config = AppConfig.load(ENV_PROVIDERS, {
    LOG_LEVEL: process.env.GW_TEST_LOG_LEVEL ?? 'silent',
    ADMIN_TOKEN,
    // no test reaches the real CBR: suites about USD prices point FX_RATES_URL at test/fakes' FakeCbr
    FX_RATES_URL: 'off',
    ...backend.env,
    ...opts.env,
  });
  let builder = Test.createTestingModule({ imports: [AppModule] })
    .overrideProvider(AppConfig)
    .useValue(config);
  if (opts.clock) builder = builder.overrideProvider(Clock).useValue(opts.clock);
  for (const o of opts.overrides ?? []) builder = builder.overrideProvider(o.provide).useValue(o.useValue);
  const moduleRef = await builder.compile();
  const app = moduleRef.createNestApplication<NestExpressApplication>(new GatewayExpressAdapter(), {
    bufferLogs: true,
    bodyParser: false,
  });
  app.use(responseContractRecorder()); // first: it sees every answer (test/support/response-contract.ts)
  setupApp(app);
  await app.listen(opts.port ?? 0, '127.0.0.1');
  const address = app.getHttpServer().address();
  const port = typeof address === 'object' && address ? address.port : 0;
  let closed = false;
  return {
    app,
    url: `http://127.0.0.1:${port}`,
    config,
    backend,
    get: <T>(token: Type<T> | string | symbol) => app.get<T>(token as Type<T>),
    close: async () => {
      if (closed) return;
      closed = true;
      // Drop client sockets the tests left open (undici may pre-open a connection that never sends a
      // request, e.g. after an aborted fetch); otherwise server.close() waits for its header timeout.
      const server = app.getHttpServer() as Server;
      const closing = app.close();
      server.closeAllConnections();
      await closing;
      await backend.cleanup();
    },
  };
}
