import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { parse } from 'cookie';
import { AppConfig } from '@app/config';
import { actorOf } from './audit';
import { setSessionCookie } from './auth.controller';
import { OidcService } from './oidc.service';

const PENDING_COOKIE = 'gw_oidc';
const PENDING_PATH = '/api/v1/auth/oidc';

/**
 * Browser navigations, not API calls (the console links to /login; the identity provider redirects to
 * /callback): answered with redirects, so they are left out of the OpenAPI document and described in
 * docs/accounts.md.
 */
@ApiExcludeController()
@Controller('api/v1/auth/oidc')
export class OidcController {
  constructor(
    private readonly oidc: OidcService,
    private readonly config: AppConfig,
  ) {}

  @Get('login')
  async login(@Req() req: Request, @Res() res: Response): Promise<void> {
    const { url, pendingId } = await this.oidc.begin();
    res.cookie(PENDING_COOKIE, pendingId, {
      httpOnly: true,
      sameSite: 'lax',
      secure: req.secure,
      path: PENDING_PATH,
      maxAge: 10 * 60_000,
    });
    res.redirect(302, url);
  }

  @Get('callback')
  async callback(@Req() req: Request, @Res() res: Response): Promise<void> {
    const pendingId = parse(req.headers.cookie ?? '')[PENDING_COOKIE];
    const query = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
    res.clearCookie(PENDING_COOKIE, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: PENDING_PATH });
    const opened = await this.oidc.complete(query, pendingId, actorOf(req));
    setSessionCookie(res, req, opened.token, this.config.accounts.sessionMaxAgeMs);
    res.redirect(302, this.config.accounts.oidc?.postLoginUrl ?? '/');
  }
}
