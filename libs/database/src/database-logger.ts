import { Logger } from '@nestjs/common';
import { AbstractLogger, type LoggerOptions, type LogLevel, type LogMessage } from 'typeorm';

/** Where DatabaseLogger writes (a Nest Logger in the service, so lines are structured and carry the request id). */
export type DatabaseLogSink = Pick<Logger, 'log' | 'warn' | 'error' | 'debug'>;

/**
 * TypeORM's logger for the service: what TypeORM reports (failed and slow queries when enabled,
 * migrations, schema messages) goes to the structured log with the SQL text and NEVER the bound
 * parameters — they hold key hashes, prompts, amounts. TypeORM's own loggers print them.
 */
export class DatabaseLogger extends AbstractLogger {
  constructor(
    options: LoggerOptions = false,
    private readonly sink: DatabaseLogSink = new Logger('Database'),
  ) {
    super(options);
  }

  protected writeLog(
    level: LogLevel,
    logMessage: LogMessage | string | number | (LogMessage | string | number)[],
  ): void {
    const entries = (Array.isArray(logMessage) ? logMessage : [logMessage]).map((m) =>
      typeof m === 'object' ? m : { message: m },
    );
    const fields: Record<string, unknown> = {};
    let text = '';
    for (const entry of entries) {
      const message: unknown = entry.message;
      if (message instanceof Error)
        fields.err = { type: message.name, message: message.message, code: (message as { code?: unknown }).code };
      else if (entry.format === 'sql') fields.sql = message;
      else text = String(message);
      if (entry.additionalInfo?.time !== undefined) fields.timeMs = entry.additionalInfo.time;
      if (entry.type && !fields.type) fields.type = entry.type;
      // entry.parameters deliberately dropped
    }
    const msg = text || String(fields.type ?? level);
    switch (level) {
      case 'warn':
        return this.sink.warn(fields, msg);
      case 'error':
        return this.sink.error(fields, msg);
      case 'query':
      case 'schema':
        return this.sink.debug(fields, msg);
      default:
        return this.sink.log(fields, msg);
    }
  }
}
