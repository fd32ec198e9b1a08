import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { buildOpenApiDocument } from './openapi-document';

/**
 * `npm run openapi [-- <file>]`: writes the OpenAPI document (default docs/openapi.json) from the module
 * metadata. The app is created in preview mode — the module graph is scanned but no provider is
 * instantiated — so no database, cache or upstream is touched and no port is opened.
 */
async function main(out: string): Promise<void> {
  const app = await NestFactory.create(AppModule, { preview: true, logger: false, abortOnError: false });
  const document = buildOpenApiDocument(app);
  writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`OpenAPI document written to ${out}\n`);
}

main(resolve(process.argv[2] ?? 'docs/openapi.json')).then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`openapi: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
