import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  IsDateString,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
} from 'class-validator';
import { AUDIT_ACTIONS, AUDIT_OBJECT_TYPES } from '../audit/audit-actions';

export class UserListQueryDto {
  @ApiPropertyOptional({ description: 'Users per page (1–500)', default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(500)
  limit?: number;

  @ApiPropertyOptional({ description: 'Cursor: the `next_after` of the previous page' })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(36)
  after?: string;
}

/** The filters of the audit log, shared by the page and the CSV export. */
export class AuditFilterQueryDto {
  @ApiPropertyOptional({ description: 'Only this team (required unless you are an operator)' })
  @IsOptional()
  @IsUUID()
  team_id?: string;

  @ApiPropertyOptional({ description: 'Actor id (a user id)' })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  actor?: string;

  @ApiPropertyOptional({
    description: 'A person by e-mail: what their account did (and the failed sign-ins naming it)',
    example: 'owner@acme.test',
  })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(320)
  actor_email?: string;

  @ApiPropertyOptional({ description: 'Action, e.g. api_key.create', example: 'member.role_change' })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  action?: string;

  @ApiPropertyOptional({ description: 'Target id (a key, user, team, invitation, session …)' })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  target?: string;

  @ApiPropertyOptional({ enum: AUDIT_OBJECT_TYPES, description: 'Object type of the target', example: 'api_key' })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  target_type?: string;

  @ApiPropertyOptional({ description: 'From this instant (ISO 8601, inclusive)', example: '2026-11-01T00:00:00Z' })
  @IsOptional()
  @IsDateString()
  from?: string;

  @ApiPropertyOptional({ description: 'Until this instant (ISO 8601, exclusive)', example: '2026-12-01T00:00:00Z' })
  @IsOptional()
  @IsDateString()
  to?: string;
}

export class AuditQueryDto extends AuditFilterQueryDto {
  @ApiPropertyOptional({ description: 'Cursor: the `next_cursor` of the previous page' })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  cursor?: number;

  @ApiPropertyOptional({ description: 'Records per page (1–1000)', default: 100 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(1000)
  limit?: number;

  @ApiPropertyOptional({ enum: ['json', 'csv'], default: 'json', description: 'csv: one page as text/csv' })
  @IsOptional()
  @IsIn(['json', 'csv'])
  format?: 'json' | 'csv';
}

export class AuditActorDto {
  @ApiProperty({ enum: ['user', 'operator_token', 'api_key', 'cli', 'system', 'anonymous'], example: 'user' })
  type: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'User id, API key id (failed sign-in: the e-mail tried)',
    example: '6f1c1c53-8b0c-4c37-9d43-6a3e3f0f8e12',
  })
  id: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The user's e-mail", example: 'owner@acme.test' })
  email: string | null;
  @ApiProperty({ type: String, nullable: true, description: "The user's or API key's name", example: 'Olga Owner' })
  name: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'What to show: the name or e-mail of the user, the name of the key; null for the operator token, CLI and system',
    example: 'Olga Owner',
  })
  label: string | null;
}

export class AuditTeamDto {
  @ApiProperty({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) id: string;
  @ApiProperty({ type: String, nullable: true, example: 'acme' }) name: string | null;
}

export class AuditTargetDto {
  @ApiProperty({ type: String, nullable: true, enum: AUDIT_OBJECT_TYPES, example: 'api_key' }) type: string | null;
  @ApiProperty({ type: String, nullable: true, example: '6f1c1c53-8b0c-4c37-9d43-6a3e3f0f8e11' }) id: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "Readable name: a user's e-mail, a key's or team's name, an invitation's e-mail, a model id…",
    example: 'backend-prod',
  })
  label: string | null;
}

/** What the change was about, in plain fields (null when the record does not say). */
export class AuditDetailsDto {
  @ApiProperty({ type: Number, nullable: true, description: 'Top-up amount, RUB', example: 7 })
  amount_rub: number | null;
  @ApiProperty({ type: Number, nullable: true, description: 'Balance after the top-up, RUB', example: 107 })
  balance_rub: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'The e-mail concerned (invited, accepting, member changed)',
    example: 'dev@acme.test',
  })
  email: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Role given', example: 'admin' }) role: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Role before the change', example: 'member' })
  previous_role: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Name of the object', example: 'backend-prod' })
  name: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Top-up note', example: 'Invoice 7 paid' }) note:
    string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Top-up or payment reference', example: 'inv-7' })
  reference: string | null;
  @ApiProperty({ type: String, nullable: true, description: 'Why (a revocation)', example: 'member_removed' })
  reason: string | null;
}

export class AuditEntryDto {
  @ApiProperty({ example: '3d2c1b0a-1111-4222-8333-944455556666' }) id: string;
  @ApiProperty({ example: '2026-11-25T10:00:00.000Z' }) at: string;
  @ApiProperty({ enum: ['user', 'operator_token', 'api_key', 'cli', 'system', 'anonymous'], example: 'user' })
  actor_type: string;
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'User id (failed sign-in: the e-mail tried)',
    example: null,
  })
  actor_id: string | null;
  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7' }) ip: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Mozilla/5.0' }) user_agent: string | null;
  @ApiProperty({ type: String, nullable: true, example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) team_id:
    string | null;
  @ApiProperty({ enum: AUDIT_ACTIONS, example: 'api_key.create' }) action: string;
  @ApiProperty({ type: String, nullable: true, enum: AUDIT_OBJECT_TYPES, example: 'api_key' }) target_type:
    string | null;
  @ApiProperty({ type: String, nullable: true, example: '6f1c1c53-8b0c-4c37-9d43-6a3e3f0f8e11' }) target_id:
    string | null;
  @ApiProperty({
    nullable: true,
    description: '{before, after} with secrets redacted',
    example: { before: null, after: { name: 'backend-prod' } },
  })
  diff: unknown;
  @ApiProperty({ type: AuditActorDto }) actor: AuditActorDto;
  @ApiProperty({ type: AuditTeamDto, nullable: true, description: 'null: not a team matter (sign-ins, users)' })
  team: AuditTeamDto | null;
  @ApiProperty({ type: AuditTargetDto, nullable: true }) target: AuditTargetDto | null;
  @ApiProperty({ type: AuditDetailsDto }) details: AuditDetailsDto;
}

export class AuditListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [AuditEntryDto] }) data: AuditEntryDto[];
  @ApiProperty({
    type: Number,
    nullable: true,
    description: 'Pass as `cursor` for the next (older) page',
    example: null,
  })
  next_cursor: number | null;
}
