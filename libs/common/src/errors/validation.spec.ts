import { IsInt, IsString, Min } from 'class-validator';
import { getMetadataStorage } from 'class-validator';
import { ApiError } from './api-error';
import { createValidationPipe } from './validation';

class ProbeDto {
  @IsString()
  name!: string;

  @IsInt()
  @Min(1)
  count!: number;
}

describe('createValidationPipe: rule lookups memoized per DTO class', () => {
  const pipe = createValidationPipe();
  const meta = { type: 'body' as const, metatype: ProbeDto, data: '' };

  it('looks the rules of a class up once: the same list comes back for every request', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(ProbeDto, '', false, false);
    expect(first.map((m) => m.propertyName).sort()).toEqual(['count', 'count', 'name']);
    expect(storage.getTargetValidationMetadatas(ProbeDto, '', false, false)).toBe(first);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
  });

  it('still validates, strips unknown fields and names the failing field', async () => {
    await expect(pipe.transform({ name: 'a', count: 2, extra: true }, meta)).resolves.toEqual(
      Object.assign(new ProbeDto(), { name: 'a', count: 2 }),
    );
    const err = (await pipe.transform({ name: 'a', count: 0 }, meta).catch((e: unknown) => e)) as ApiError;
    expect(err).toBeInstanceOf(ApiError);
    expect(err.status).toBe(400);
    expect(err.param).toBe('count');
  });

  it('a rule registered later is seen (the memo is cleared)', async () => {
    class LateDto {
      @IsString()
      late!: string;
    }
    await expect(pipe.transform({ late: 5 }, { type: 'body', metatype: LateDto, data: '' })).rejects.toBeInstanceOf(
      ApiError,
    );
  });

  it('a value of the wrong type is named as such, not by a range rule it also fails', async () => {
    const err = (await pipe.transform({ name: 'a', count: 'x' }, meta).catch((e: unknown) => e)) as ApiError;
    expect(err.param).toBe('count');
    expect(err.message).toBe('count must be an integer number');
    const range = (await pipe.transform({ name: 'a', count: 0 }, meta).catch((e: unknown) => e)) as ApiError;
    expect(range.message).toBe('count must not be less than 1');
  });
});
