import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsBoolean, IsEmail, IsIn, IsNotEmpty, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { TEAM_ROLES, type TeamRole } from '@app/auth';

const trimLower = ({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim().toLowerCase() : value);

/** Passwords: 12 to 200 characters (and the strength rule of PasswordPolicy). */
export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 200;

export class LoginDto {
  @ApiProperty({ example: 'ada@example.com', maxLength: 320 })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(320)
  email: string;

  @ApiProperty({ example: 'correct horse battery staple', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  password: string;
}

export class UserDto {
  @ApiProperty({ example: '0f8fad5b-d9cb-469f-a165-70867728950e' }) id: string;
  @ApiProperty({ example: 'ada@example.com' }) email: string;
  @ApiProperty({ example: 'Ada Lovelace' }) name: string;
  @ApiProperty({ description: 'Instance-wide administrator', example: false }) operator: boolean;
  @ApiProperty({ example: false }) disabled: boolean;
  @ApiProperty({ example: '2026-11-21T10:00:00.000Z' }) created_at: string;
  @ApiProperty({ type: String, nullable: true, example: '2026-11-25T08:00:00.000Z' }) last_login_at: string | null;
}

export class MembershipDto {
  @ApiProperty({ example: '1b4e28ba-2fa1-11d2-883f-0016d3cca427' }) team_id: string;
  @ApiProperty({ example: 'search-team' }) team_name: string;
  @ApiProperty({ enum: TEAM_ROLES, example: 'admin' }) role: TeamRole;
}

export class AuthStateDto {
  @ApiProperty({ type: UserDto }) user: UserDto;
  @ApiProperty({ type: [MembershipDto] }) memberships: MembershipDto[];
  @ApiProperty({
    description: 'Send it as the x-csrf-token header on every state-changing request made with the session cookie',
    example: 'q1Jx0cJ8dJm1v2yPZKq6mJp0pQe3u9Zt',
  })
  csrf_token: string;
}

export class SessionProbeDto {
  @ApiProperty({ description: 'Whether the request carries a live session cookie', example: false })
  signed_in: boolean;
  @ApiProperty({ type: AuthStateDto, nullable: true, description: 'What GET /api/v1/auth/me answers, when signed in' })
  state: AuthStateDto | null;
}

export class ChangePasswordDto {
  @ApiProperty({ example: 'correct horse battery staple', maxLength: 200 })
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  current_password: string;

  @ApiProperty({ example: 'a much longer new passphrase', minLength: PASSWORD_MIN, maxLength: 200 })
  @IsString()
  @MinLength(PASSWORD_MIN)
  @MaxLength(200)
  new_password: string;
}

export class SessionDto {
  @ApiProperty({ example: '5b1d9f0e-7c43-4b8e-9a3b-8b7d2c1e4f60' }) id: string;
  @ApiProperty({ description: 'The session of this request', example: true }) current: boolean;
  @ApiProperty({ enum: ['password', 'oidc', 'invitation'], example: 'password' }) via: string;
  @ApiProperty({ type: String, nullable: true, example: '203.0.113.7' }) ip: string | null;
  @ApiProperty({ type: String, nullable: true, example: 'Mozilla/5.0' }) user_agent: string | null;
  @ApiProperty({ example: '2026-11-25T08:00:00.000Z' }) created_at: string;
  @ApiProperty({ example: '2026-11-25T09:30:00.000Z' }) last_seen_at: string;
  @ApiProperty({ description: 'Absolute end of the session', example: '2026-12-02T08:00:00.000Z' }) expires_at: string;
}

export class SessionListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [SessionDto] }) data: SessionDto[];
}

export class CreateUserDto {
  @ApiProperty({ example: 'grace@example.com', maxLength: 320 })
  @Transform(trimLower)
  @IsEmail()
  @MaxLength(320)
  email: string;

  @ApiPropertyOptional({ example: 'Grace Hopper', maxLength: 200 })
  @IsOptional()
  @IsString()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({
    description: 'Initial password; when absent one is generated and returned once',
    example: 'a long enough passphrase',
    minLength: PASSWORD_MIN,
    maxLength: 200,
  })
  @IsOptional()
  @IsString()
  @MinLength(PASSWORD_MIN)
  @MaxLength(200)
  password?: string;

  @ApiPropertyOptional({ description: 'Make the user an operator', default: false })
  @IsOptional()
  @IsBoolean()
  operator?: boolean;
}

export class CreatedUserDto extends UserDto {
  @ApiPropertyOptional({ description: 'The generated password (only when none was given); shown once' })
  password?: string;
}

export class UpdateUserDto {
  @ApiPropertyOptional({ example: 'Grace Hopper', maxLength: 200 })
  @IsOptional()
  @IsString()
  @IsNotEmpty()
  @MaxLength(200)
  name?: string;

  @ApiPropertyOptional({ description: 'Grant or withdraw operator rights', example: true })
  @IsOptional()
  @IsBoolean()
  operator?: boolean;

  @ApiPropertyOptional({ description: 'A disabled user cannot sign in; their sessions end', example: false })
  @IsOptional()
  @IsBoolean()
  disabled?: boolean;
}

export class UserListDto {
  @ApiProperty({ example: 'list' }) object: 'list';
  @ApiProperty({ type: [UserDto] }) data: UserDto[];
  @ApiProperty({ example: false }) has_more: boolean;
  @ApiProperty({ type: String, nullable: true, description: 'Pass as `after` for the next page', example: null })
  next_after: string | null;
}

export class RoleDto {
  @ApiProperty({ enum: TEAM_ROLES, example: 'member' })
  @IsIn(TEAM_ROLES as unknown as string[])
  role: TeamRole;
}

export class AuthProvidersDto {
  @ApiProperty({
    description: 'E-mail and password sign-in is open to everyone (false under OIDC_ONLY: then only operators use it)',
    example: true,
  })
  password: boolean;

  @ApiProperty({
    description: 'Single sign-on (OpenID Connect) is configured: GET /api/v1/auth/oidc/login starts it',
    example: false,
  })
  oidc: boolean;
}
