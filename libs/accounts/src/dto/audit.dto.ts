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

export class AuditQueryDto {
  @ApiPropertyOptional({ description: 'Only this team (required unless you are an operator)' })
  @IsOptional()
  @IsUUID()
  team_id?: string;

  @ApiPropertyOptional({ description: 'Actor id (a user id)' })
  @IsOptional()
  @IsString()
  @MaxLength(320)
  actor?: string;

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

  @ApiPropertyOptional({ description: 'From this instant (ISO 8601, inclusive)', example: '2026-11-01T00:00:00Z' })
  @IsOptional()
  @IsDateString()
  from?: string;

  @ApiPropertyOptional({ description: 'Until this instant (ISO 8601, exclusive)', example: '2026-12-01T00:00:00Z' })
  @IsOptional()
  @IsDateString()
  to?: string;

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
  @ApiProperty({ example: 'api_key.create' }) action: string;
  @ApiProperty({ type: String, nullable: true, example: 'api_key' }) target_type: string | null;
  @ApiProperty({ type: String, nullable: true, example: '6f1c1c53-8b0c-4c37-9d43-6a3e3f0f8e11' }) target_id:
    string | null;
  @ApiProperty({
    nullable: true,
    description: '{before, after} with secrets redacted',
    example: { before: null, after: { name: 'backend-prod' } },
  })
  diff: unknown;
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
