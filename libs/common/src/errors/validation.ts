import { ValidationError, ValidationPipe } from '@nestjs/common';
import { ApiError } from './api-error';

/** Dotted path of the first failing field, e.g. "messages[1].role". */
export function firstValidationProblem(errors: ValidationError[], parent = ''): { param: string; message: string } | null {
  for (const e of errors) {
    const isIndex = /^\d+$/.test(e.property);
    const path = parent === '' ? e.property : isIndex ? `${parent}[${e.property}]` : `${parent}.${e.property}`;
    if (e.constraints && Object.keys(e.constraints).length > 0) {
      // a field that is absent only fails when it is required (optional ones are skipped): say so
      if (e.value === undefined) return { param: path, message: `${path} is required.` };
      const message = Object.values(e.constraints)[0].replace(new RegExp(`^${escapeRegex(e.property)}\\b`), path);
      return { param: path, message };
    }
    if (e.children && e.children.length > 0) {
      const nested = firstValidationProblem(e.children, path);
      if (nested) return nested;
    }
  }
  return null;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The global ValidationPipe: whitelist + transform, errors as 400 with `param` naming the field. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    whitelist: true,
    transform: true,
    forbidUnknownValues: false,
    stopAtFirstError: true,
    exceptionFactory: (errors: ValidationError[]) => {
      const p = firstValidationProblem(errors);
      return ApiError.badRequest(p ? p.message : 'Invalid request body.', p?.param ?? null, 'invalid_value');
    },
  });
}
