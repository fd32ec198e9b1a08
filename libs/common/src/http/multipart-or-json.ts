import { ArgumentMetadata, createParamDecorator, ExecutionContext, Injectable, PipeTransform } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import type { Request } from 'express';
import { ApiError } from '../errors/api-error';
import { firstValidationProblem } from '../errors/validation';

/**
 * The body classes an endpoint that takes multipart or JSON accepts: `multipart` for the form fields
 * (the file itself is `@UploadedFile()`), `json` for a JSON body; a kind left out is refused with 400
 * `shape`. `null` takes the form fields as they are (no rule applies to them).
 */
export interface BodyShapes<M extends object, J extends object> {
  multipart?: (new () => M) | null;
  json?: new () => J;
  /** the 400 message when the body is neither (e.g. "The body must be JSON {file_id} (or multipart with a file).") */
  shape: string;
}

/** What the handler receives: which kind of body came, validated against its class. */
export type ShapedBody<M extends object, J extends object> = { kind: 'multipart'; body: M } | { kind: 'json'; body: J };

interface RawBody {
  multipart: boolean;
  body: unknown;
}

/**
 * Validates a multipart-or-JSON body the way the global ValidationPipe validates a JSON one
 * (whitelist, the first problem as 400 with `param`), choosing the class by the content type.
 */
@Injectable()
export class MultipartOrJsonPipe implements PipeTransform<RawBody, Promise<ShapedBody<object, object>>> {
  async transform(value: RawBody, metadata: ArgumentMetadata): Promise<ShapedBody<object, object>> {
    const shapes = metadata.data as unknown as BodyShapes<object, object>;
    const kind = value.multipart ? 'multipart' : 'json';
    const cls = value.multipart ? shapes.multipart : shapes.json;
    if (cls === undefined) throw ApiError.badRequest(shapes.shape, null);
    const body = value.body ?? (value.multipart ? {} : undefined);
    if (typeof body !== 'object' || body === null || Array.isArray(body)) throw ApiError.badRequest(shapes.shape, null);
    if (cls === null) return { kind, body };
    const dto = plainToInstance(cls, body);
    const problem = firstValidationProblem(await validate(dto, { whitelist: true }));
    if (problem) throw ApiError.badRequest(problem.message, problem.param);
    return { kind, body: dto };
  }
}

const rawBody = createParamDecorator((_shapes: unknown, ctx: ExecutionContext): RawBody => {
  const req = ctx.switchToHttp().getRequest<Request>();
  return { multipart: Boolean(req.is('multipart/form-data')), body: req.body as unknown };
});

/**
 * The body of an endpoint that takes multipart (with an uploaded file) or JSON, validated by
 * MultipartOrJsonPipe: `@MultipartOrJsonBody({ multipart: UploadDto, json: TextDto, shape }) body: ShapedBody<UploadDto, TextDto>`.
 */
export function MultipartOrJsonBody<M extends object, J extends object>(shapes: BodyShapes<M, J>): ParameterDecorator {
  return rawBody(shapes, MultipartOrJsonPipe);
}
