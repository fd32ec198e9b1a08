import 'reflect-metadata';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppConfig, ConfigError } from '@app/config';
import { ENV_PROVIDERS, TokenizerService } from '@app/providers';
import { AccountsBootstrapService } from '@app/accounts';
import { AppModule } from './app.module';
import { setupApp } from './setup-app';
import { GatewayExpressAdapter } from './http-adapter';
import { consoleAssets, loadConsoleAssets } from './console-assets';

async function bootstrap(): Promise<void> {
  let config: AppConfig;
  try {
    config = AppConfig.load(ENV_PROVIDERS);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const app = await NestFactory.create<NestExpressApplication>(AppModule, new GatewayExpressAdapter(), {
    bufferLogs: true,
    bodyParser: false,
  });
  // the web console (dist/console, built by `npm run build`) is answered before the API's middleware
  const assets = loadConsoleAssets(join(__dirname, '..', '..', '..', 'console'));
  if (assets) app.use(consoleAssets(assets));
  setupApp(app);
  app.get(TokenizerService).preload(); // parse the BPE rank tables now, not on the first request
  const server = app.getHttpServer();
  server.keepAliveTimeout = 65_000; // longer than typical load-balancer idle timeouts
  await app.listen(config.port, config.host);
  process.stdout.write(
    `model gateway listening on http://${config.host}:${config.port} (docs at /docs${assets ? ', console at /' : ''})\n`,
  );

  // Graceful shutdown: stop accepting, let in-flight requests finish (streams included) for up to
  // SHUTDOWN_GRACE_MS, then cut what is left (their handlers abort upstream calls and settle what was
  // delivered); shutdown hooks then release any hold still open and close the database.
  let stopping = false;
  const shutdown = async (signal: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    process.stdout.write(`${signal}: draining in-flight requests (grace ${config.shutdownGraceMs} ms)\n`);
    const force = setTimeout(() => server.closeAllConnections(), config.shutdownGraceMs);
    force.unref();
    try {
      await app.close();
    } finally {
      clearTimeout(force);
      process.exit(0);
    }
  };
  process.once('SIGTERM', () => void shutdown('SIGTERM'));
  process.once('SIGINT', () => void shutdown('SIGINT'));

  // embedded default, no key anywhere: a dev workspace, its key and an operator, printed once. After
  // the signal handlers, so a stop during the first run is a graceful one too (the first run is then
  // cut short: its error is not the stop's)
  await app
    .get(AccountsBootstrapService)
    .firstRun()
    .catch((err: unknown) => {
      if (!stopping) throw err;
    });
}

void bootstrap();
