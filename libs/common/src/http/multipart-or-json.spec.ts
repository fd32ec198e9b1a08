import type { ArgumentMetadata } from '@nestjs/common';
import { IsNotEmpty, IsOptional, IsString, MaxLength } from 'class-validator';
import { ApiError } from '../errors/api-error';
import { BodyShapes, MultipartOrJsonPipe } from './multipart-or-json';

class TextDto {
  @IsString() @IsNotEmpty() name: string;
}
class FormDto {
  @IsOptional() @IsString() @MaxLength(4) metadata?: string;
}

const pipe = new MultipartOrJsonPipe();
const meta = (shapes: BodyShapes<object, object>): ArgumentMetadata =>
  ({ type: 'custom', data: shapes }) as unknown as ArgumentMetadata;
const both = meta({ multipart: FormDto, json: TextDto, shape: 'JSON {name} or multipart' });

async function refusal(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof ApiError) return err;
    throw err;
  }
  throw new Error('expected a 400');
}

describe('MultipartOrJsonPipe', () => {
  it('validates a JSON body against the json class (whitelisted) and says which kind came', async () => {
    const out = await pipe.transform({ multipart: false, body: { name: 'a.md', extra: 1 } }, both);
    expect(out.kind).toBe('json');
    expect(out.body).toBeInstanceOf(TextDto);
    expect(out.body).toEqual({ name: 'a.md' });
  });

  it('validates form fields against the multipart class', async () => {
    expect(await pipe.transform({ multipart: true, body: { metadata: '{}' } }, both)).toEqual({
      kind: 'multipart',
      body: { metadata: '{}' },
    });
    const e = await refusal(pipe.transform({ multipart: true, body: { metadata: '{"a":1}' } }, both));
    expect([e.status, e.param]).toEqual([400, 'metadata']);
  });

  it('answers 400 naming the field, or the expected shape when the body is not an object', async () => {
    const e = await refusal(pipe.transform({ multipart: false, body: { name: '' } }, both));
    expect([e.status, e.param, e.code]).toEqual([400, 'name', 'invalid_request']);
    for (const body of [undefined, null, [1], 'text']) {
      const s = await refusal(pipe.transform({ multipart: false, body }, both));
      expect([s.status, s.message, s.param]).toEqual([400, 'JSON {name} or multipart', null]);
    }
  });

  it('refuses a kind the endpoint does not take, and passes form fields through when no class applies', async () => {
    const jsonOnly = meta({ json: TextDto, shape: 'JSON only' });
    expect((await refusal(pipe.transform({ multipart: true, body: {} }, jsonOnly))).message).toBe('JSON only');
    const upload = meta({ multipart: null, json: TextDto, shape: 'x' });
    expect(await pipe.transform({ multipart: true, body: undefined }, upload)).toEqual({ kind: 'multipart', body: {} });
  });
});
