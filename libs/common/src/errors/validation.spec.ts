import { ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
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

  it('null in a field not declared nullable → 400 naming it (nested and array items too); declared nullable passes', async () => {
    class InnerDto {
      @IsString() id!: string;
    }
    class OuterDto {
      @ApiPropertyOptional() @IsOptional() @IsString() name?: string;
      @ApiPropertyOptional({ nullable: true }) @IsOptional() @IsString() label?: string | null;
      @ApiPropertyOptional({ type: [InnerDto] })
      @IsOptional()
      @ValidateNested({ each: true })
      @Type(() => InnerDto)
      items?: InnerDto[];
    }
    const outer = { type: 'body' as const, metatype: OuterDto, data: '' };
    const fail = async (body: unknown) => (await pipe.transform(body, outer).catch((e: unknown) => e)) as ApiError;
    expect(await fail({ name: null })).toMatchObject({ status: 400, param: 'name', code: 'invalid_value' });
    expect((await fail({ name: null })).message).toBe('name must not be null.');
    expect(await fail({ items: [{ id: 'a' }, { id: null }] })).toMatchObject({ param: 'items[1].id' });
    expect(await fail({ items: [null] })).toMatchObject({ param: 'items[0]' });
    await expect(pipe.transform({ label: null, unknown: null }, outer)).resolves.toEqual(
      Object.assign(new OuterDto(), { label: null }),
    );
  });
});
