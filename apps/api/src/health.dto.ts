import { ApiProperty } from '@nestjs/swagger';

export class HealthDto {
  @ApiProperty({ example: 'ok' }) status: 'ok';
}

export class DependencyCheckDto {
  @ApiProperty({ example: 'sqlite', description: 'sqlite | postgres (database); memory | redis (cache)' }) kind: string;
  @ApiProperty({ example: true }) ok: boolean;
}

export class ReadinessChecksDto {
  @ApiProperty({ type: DependencyCheckDto }) database: DependencyCheckDto;
  @ApiProperty({ type: DependencyCheckDto }) cache: DependencyCheckDto;
}

export class ReadinessDto {
  @ApiProperty({ enum: ['ready', 'unavailable'], example: 'ready' }) status: 'ready' | 'unavailable';
  @ApiProperty({ type: ReadinessChecksDto }) checks: ReadinessChecksDto;
}
