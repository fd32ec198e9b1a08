import { Body, Controller, Delete, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiTags,
  ApiTooManyRequestsResponse,
  ApiUnauthorizedResponse,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { SESSION_COOKIE, SessionPrincipal, sessionOf } from '@app/auth';
import { AppConfig } from '@app/config';
import { AccountsService } from './accounts.service';
import { CurrentSession, SessionAuth } from './access';
import { actorOf } from './audit';
import {
  AuthProvidersDto,
  AuthStateDto,
  ChangePasswordDto,
  LoginDto,
  SessionListDto,
  SessionProbeDto,
} from './dto/auth.dto';

/** Cookie flags: HttpOnly, SameSite=Lax, Path=/, Secure when the request came over TLS (per TRUST_PROXY). */
export function setSessionCookie(res: Response, req: Request, token: string, maxAgeMs: number): void {
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    secure: req.secure,
    path: '/',
    maxAge: maxAgeMs,
  });
}

function clearSessionCookie(res: Response, req: Request): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/' });
}

@ApiTags('Accounts')
@Controller('api/v1/auth')
export class AuthController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly config: AppConfig,
  ) {}

  @Get('providers')
  @ApiOperation({
    summary: 'The sign-in methods this server offers (public; starts nothing)',
    description: 'Lets a sign-in page show "Sign in with SSO" only when OpenID Connect is configured.',
  })
  @ApiOkResponse({ type: AuthProvidersDto })
  providers(): AuthProvidersDto {
    const { oidc, oidcOnly } = this.config.accounts;
    return { password: !oidcOnly, oidc: oidc !== undefined };
  }

  @Post('login')
  @HttpCode(200)
  @ApiOperation({
    summary: 'Sign in with e-mail and password: sets the session cookie (a new session every time)',
    description:
      'Failed attempts are throttled per account and per client address (429 with Retry-After). Unknown e-mail and wrong password get the same 401 invalid_credentials.',
  })
  @ApiOkResponse({ type: AuthStateDto })
  @ApiUnauthorizedResponse({ description: 'invalid_credentials' })
  @ApiTooManyRequestsResponse({ description: 'Too many failed attempts' })
  async login(
    @Body() body: LoginDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AuthStateDto> {
    const { state, opened } = await this.accounts.login(body.email, body.password, actorOf(req));
    setSessionCookie(res, req, opened.token, this.config.accounts.sessionMaxAgeMs);
    return state;
  }

  @Post('logout')
  @HttpCode(204)
  @SessionAuth()
  @ApiOperation({ summary: 'Sign out: ends this session and clears the cookie' })
  @ApiNoContentResponse({ description: 'Signed out' })
  async logout(
    @CurrentSession() s: SessionPrincipal,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<void> {
    await this.accounts.logout(s, actorOf(req));
    clearSessionCookie(res, req);
  }

  @Get('me')
  @SessionAuth()
  @ApiOperation({ summary: 'The signed-in user, their teams and the CSRF token' })
  @ApiOkResponse({ type: AuthStateDto })
  me(@CurrentSession() s: SessionPrincipal): Promise<AuthStateDto> {
    return this.accounts.me(s);
  }

  @Get('session')
  @ApiOperation({
    summary: 'Is there a session? (public; 200 either way)',
    description:
      'For a page that only wants to know whether to show sign-in: unlike GET /api/v1/auth/me it answers 200 without a session (signed_in false), so a signed-out browser logs no failed request.',
  })
  @ApiOkResponse({ type: SessionProbeDto })
  async probe(@Req() req: Request): Promise<SessionProbeDto> {
    const s = sessionOf(req);
    return s ? { signed_in: true, state: await this.accounts.me(s) } : { signed_in: false, state: null };
  }

  @Post('password')
  @HttpCode(204)
  @SessionAuth()
  @ApiOperation({ summary: "Change the password (ends the user's other sessions)" })
  @ApiNoContentResponse({ description: 'Changed' })
  async password(
    @CurrentSession() s: SessionPrincipal,
    @Body() body: ChangePasswordDto,
    @Req() req: Request,
  ): Promise<void> {
    await this.accounts.changePassword(s, body.current_password, body.new_password, actorOf(req));
  }

  @Get('sessions')
  @SessionAuth()
  @ApiOperation({ summary: "The signed-in user's sessions" })
  @ApiOkResponse({ type: SessionListDto })
  async sessions(@CurrentSession() s: SessionPrincipal): Promise<SessionListDto> {
    return { object: 'list', data: await this.accounts.listSessions(s) };
  }

  @Delete('sessions/:id')
  @HttpCode(204)
  @SessionAuth()
  @ApiOperation({ summary: 'End one of your sessions (e.g. a lost device)' })
  @ApiNoContentResponse({ description: 'Ended' })
  async revoke(@CurrentSession() s: SessionPrincipal, @Param('id') id: string, @Req() req: Request): Promise<void> {
    await this.accounts.revokeSession(s, id, actorOf(req));
  }
}
