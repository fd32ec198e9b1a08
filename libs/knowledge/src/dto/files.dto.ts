import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

export const FILE_PURPOSES = ['assistants', 'user_data', 'batch', 'fine-tune', 'vision', 'evals'] as const;

export class UploadFileDto {
  @ApiProperty({ type: 'string', format: 'binary', description: 'The file (≤ 10 MB)' }) file: unknown;
  @ApiProperty({
    enum: FILE_PURPOSES,
    example: 'assistants',
    description: 'assistants or user_data for knowledge bases',
  })
  @IsString()
  @IsIn(FILE_PURPOSES)
  purpose: string;
}

export class FileObjectDto {
  @ApiProperty({ example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' }) id: string;
  @ApiProperty({ example: 'file' }) object: 'file';
  @ApiProperty({ example: 120_000 }) bytes: number;
  @ApiProperty({ example: 1767225600, description: 'Unix seconds' }) created_at: number;
  @ApiProperty({ example: 'handbook.pdf' }) filename: string;
  @ApiProperty({ example: 'assistants' }) purpose: string;
  @ApiProperty({ example: 'processed' }) status: 'processed';
}

export class FileListQueryDto {
  @ApiPropertyOptional({
    description: 'Cursor: a file id; the page starts after it',
    example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e',
  })
  @IsOptional()
  @IsString()
  @Matches(/^file-[0-9a-f]{24}$/, { message: 'after must be a file id' })
  after?: string;

  @ApiPropertyOptional({ description: '1–10000', default: 10000, example: 20 })
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(10_000)
  limit?: number;

  @ApiPropertyOptional({ enum: ['asc', 'desc'], default: 'desc' })
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';

  @ApiPropertyOptional({ enum: FILE_PURPOSES })
  @IsOptional()
  @IsString()
  @MaxLength(32)
  purpose?: string;
}

export class FileListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [FileObjectDto] }) data: FileObjectDto[];
  @ApiProperty({ example: false }) has_more: boolean;
  @ApiProperty({ nullable: true, type: String, example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' }) first_id: string | null;
  @ApiProperty({ nullable: true, type: String, example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' }) last_id: string | null;
}

export class FileDeletedDto {
  @ApiProperty({ example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' }) id: string;
  @ApiProperty({ example: 'file' }) object: 'file';
  @ApiProperty({ example: true }) deleted: boolean;
}
