import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsEmail, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { TEAM_ROLES, type TeamRole } from '@app/auth';
import { RequestLogSettingsDto } from '@app/admin/dto/admin.dto';
import { PASSWORD_MAX, PASSWORD_MIN } from './auth.dto';

export class MyTeamDto {
  @ApiProperty({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) id: string;
  @ApiProperty({ example: 'search-team' }) name: string;
  @ApiProperty({
    enum: [...TEAM_ROLES, 'operator'],
    description: 'Your role; "operator" when you reach the team as an operator without a membership',
    example: 'admin',
  })
  role: TeamRole | 'operator';
  @ApiProperty({ example: 1000 }) balance_rub: number;
}

export class MyTeamListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [MyTeamDto] }) data: MyTeamDto[];
}

export class MemberDto {
  @ApiProperty({ example: '0f8fad5b-d9cb-469f-a165-70867728950e' }) user_id: string;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ example: 'Ada Lovelace' }) name: string;
  @ApiProperty({ enum: TEAM_ROLES, example: 'member' }) role: TeamRole;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) joined_at: string;
}

export class MemberListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [MemberDto] }) data: MemberDto[];
}

export class CreateInvitationDto {
  @ApiProperty({ example: 'grace@example.com', maxLength: 320 })
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value))
  @IsEmail()
  @MaxLength(320)
  email: string;

  @ApiProperty({ enum: TEAM_ROLES, example: 'member' })
  @IsIn(TEAM_ROLES as unknown as string[])
  role: TeamRole;
}

export class CreatedInvitationDto {
  @ApiProperty({ example: '7d444840-9dc0-11d1-b245-5ffdce74fad2' }) id: string;
  @ApiProperty({ description: 'One-use token (shown once)', example: 'inv_3q2Yd…' }) token: string;
  @ApiProperty({
    description: 'Where the invitee accepts (the console; PUBLIC_BASE_URL + /invitations/{token})',
    example: 'https://gateway.example.com/invitations/inv_3q2Yd…',
  })
  url: string;
  @ApiProperty({ example: '2026-12-02T10:00:00.000Z' }) expires_at: string;
}

export class InvitationDto {
  @ApiProperty({ example: '7d444840-9dc0-11d1-b245-5ffdce74fad2' }) id: string;
  @ApiProperty({ example: 'grace@example.com' }) email: string;
  @ApiProperty({ enum: TEAM_ROLES, example: 'member' }) role: TeamRole;
  @ApiProperty({ enum: ['pending', 'accepted', 'revoked', 'expired'], example: 'pending' }) status: string;
  @ApiProperty({ example: '2026-11-25T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-12-02T10:00:00.000Z' }) expires_at: string;
}

export class InvitationListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [InvitationDto] }) data: InvitationDto[];
}

export class InvitationPreviewDto {
  @ApiProperty({ example: 'acme' }) team_name: string;
  @ApiProperty({
    example: 'grace@example.com',
    description: 'The invited e-mail (the account to create or sign in with)',
  })
  email: string;
  @ApiProperty({ enum: TEAM_ROLES, example: 'member' }) role: TeamRole;
  @ApiProperty({
    nullable: true,
    type: String,
    example: 'Ada Lovelace <ada@example.com>',
    description: 'Who invited: name and e-mail of the user (null when created by the operator token or the CLI)',
  })
  invited_by: string | null;
  @ApiProperty({ example: '2026-12-02T10:00:00.000Z' }) expires_at: string;
  @ApiProperty({ description: 'Whether an account with the invited e-mail exists (then sign in and accept)' })
  account_exists: boolean;
  @ApiProperty({ example: PASSWORD_MIN, description: 'The shortest password the server accepts' })
  password_min_length: number;
  @ApiProperty({ example: PASSWORD_MAX, description: 'The longest password the server accepts' })
  password_max_length: number;
}

export class AcceptInvitationDto {
  @ApiPropertyOptional({ description: 'Required for a new user', example: 'Grace Hopper', maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({
    description: 'Required for a new user',
    example: 'correct horse battery staple',
    minLength: PASSWORD_MIN,
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @MinLength(PASSWORD_MIN)
  @MaxLength(200)
  password?: string;
}

export class AcceptedInvitationDto {
  @ApiProperty({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) team_id: string;
  @ApiProperty({ enum: TEAM_ROLES, example: 'member' }) role: TeamRole;
  @ApiProperty({ example: '0f8fad5b-d9cb-469f-a165-70867728950e' }) user_id: string;
}

export class UpdateTeamSettingsDto extends RequestLogSettingsDto {
  @ApiPropertyOptional({ example: 'search-team', maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;
}
