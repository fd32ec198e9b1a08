import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppConfig, ConfigError } from '@app/config';
import { AppModule } from './app.module';
import { setupApp } from './setup-app';

async function bootstrap(): Promise<void> {
  let config: AppConfig;
  try {
    config = AppConfig.fromEnv();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`configuration error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
  const app = await NestFactory.create<NestExpressApplication>(AppModule, { bufferLogs: true });
  setupApp(app);
  const server = app.getHttpServer();
  server.keepAliveTimeout = 65_000; // longer than typical load-balancer idle timeouts
  await app.listen(config.port, config.host);
  process.stdout.write(`model gateway listening on http://${config.host}:${config.port} (docs at /docs)\n`);
}

void bootstrap();
