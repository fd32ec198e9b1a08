import 'reflect-metadata';
import { plainToInstance, Type } from 'class-transformer';
import {
  ArrayMinSize,
  IsDefined,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  Min,
  MinLength,
  validate,
  ValidateIf,
  ValidateNested,
  ValidationError,
  ValidatorOptions,
} from 'class-validator';
import { installValidationPlans, supportedClassValidator } from './validation-plans';

class PartDto {
  @IsIn(['text', 'image_url'])
  type!: string;

  @IsOptional()
  @IsString()
  text?: string;
}

class MessageDto {
  @IsIn(['system', 'user', 'assistant'], { context: { hint: 'role' } })
  role!: string;

  @ValidateIf((o: MessageDto) => typeof o.content === 'string')
  @IsString()
  @MinLength(1)
  content!: unknown;

  @IsOptional()
  @ValidateNested({ each: true })
  @Type(() => PartDto)
  parts?: PartDto[];
}

class OptionsDto {
  @IsOptional()
  @IsInt({ groups: ['strict'] })
  @Min(0, { always: true })
  seed?: number;
}

class RequestDto {
  @IsString()
  model!: string;

  @ValidateNested({ each: true })
  @ArrayMinSize(1)
  @Type(() => MessageDto)
  messages!: MessageDto[];

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(4096)
  max_tokens?: number;

  @IsDefined()
  @IsOptional()
  user?: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => OptionsDto)
  options?: OptionsDto;

  @IsOptional() @IsString() a?: string;
  @IsOptional() @IsString() b?: string;
  @IsOptional() @IsInt() c?: number;
}

const bodies: unknown[] = [
  { model: 'm', messages: [{ role: 'user', content: 'hi' }], max_tokens: 32, user: 'u' },
  { model: 'm', messages: [{ role: 'user', content: 'hi' }] },
  { model: 5, messages: [] },
  { messages: [{ role: 'robot', content: '' }], max_tokens: 0, extra: true },
  { model: 'm', messages: [{ role: 'user', content: 3, parts: [{ type: 'text', text: 1 }, { type: 'x' }] }] },
  { model: 'm', messages: 'nope', max_tokens: 'x', options: { seed: -1 } },
  { model: 'm', messages: [null, 4, { role: 'assistant' }], options: 'x', user: null },
  { model: null, messages: null, max_tokens: null, a: null, b: 1, c: 'c', options: { seed: 1.5 } },
  {},
];

const optionSets: ValidatorOptions[] = [
  { whitelist: true, forbidUnknownValues: false },
  {},
  { whitelist: true, forbidNonWhitelisted: true },
  { skipMissingProperties: true },
  { skipNullProperties: true, skipUndefinedProperties: true },
  { groups: ['strict'] },
  { groups: ['strict'], strictGroups: true },
  { stopAtFirstError: true },
  { validationError: { target: false, value: false } },
];

/** What validate() reports, as plain data (class instances and functions left out). */
function shape(errors: ValidationError[]): unknown {
  return errors.map((e) => ({
    property: e.property,
    value: JSON.stringify(e.value),
    hasTarget: e.target !== undefined,
    constraints: e.constraints,
    contexts: e.contexts,
    children: e.children ? shape(e.children) : undefined,
  }));
}

async function run(body: unknown, options: ValidatorOptions): Promise<{ errors: unknown; left: unknown }> {
  const instance = plainToInstance(RequestDto, structuredClone(body)) as object;
  const errors = await validate(instance, options);
  // the whitelist strips members from the instance: what is left is part of the result
  return { errors: shape(errors), left: JSON.parse(JSON.stringify(instance)) };
}

describe('validation plans: class-validator with its rules sorted once per DTO property', () => {
  it('the installed class-validator is a version the plans mirror', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { version } = require('class-validator/package.json') as { version: string };
    expect(supportedClassValidator(version)).toBe(true);
    expect(supportedClassValidator('0.16.0')).toBe(false);
  });

  it('validate() reports the same errors with and without them, for every body and option set', async () => {
    const uninstall = installValidationPlans();
    expect(uninstall).not.toBeNull();
    uninstall!();
    const expected: unknown[] = [];
    for (const options of optionSets) for (const body of bodies) expected.push(await run(body, options));
    const again = installValidationPlans()!;
    try {
      const actual: unknown[] = [];
      for (const options of optionSets) for (const body of bodies) actual.push(await run(body, options));
      expect(actual).toEqual(expected);
      // and they are not all trivially empty
      expect(expected.filter((r) => (r as { errors: unknown[] }).errors.length > 0).length).toBeGreaterThan(20);
    } finally {
      again();
    }
  });

  it('a member skipped by @IsOptional builds no error object', async () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { ValidationExecutor } = require('class-validator/cjs/validation/ValidationExecutor') as {
      ValidationExecutor: { prototype: { generateValidationError: (...a: unknown[]) => unknown } };
    };
    const proto = ValidationExecutor.prototype;
    const original = proto.generateValidationError;
    let built = 0;
    proto.generateValidationError = function (this: unknown, ...a: unknown[]) {
      built++;
      return original.apply(this, a);
    };
    const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }], user: 'u' };
    try {
      const uninstall = installValidationPlans()!;
      uninstall();
      await run(body, { whitelist: true, forbidUnknownValues: false });
      const without = built;
      built = 0;
      const again = installValidationPlans()!;
      await run(body, { whitelist: true, forbidUnknownValues: false });
      again();
      // with: model, messages, messages[0], user and the message's role and content; without: also max_tokens,
      // options, a, b, c and the message's parts (absent, skipped by @IsOptional)
      expect(built).toBe(6);
      expect(without).toBe(12);
    } finally {
      proto.generateValidationError = original;
    }
  });
});
