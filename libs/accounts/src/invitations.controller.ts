import { Body, Controller, Get, HttpCode, Param, Post, Req, Res } from '@nestjs/common';
import {
  ApiGoneResponse,
  ApiNotFoundResponse,
  ApiOkResponse,
  ApiOperation,
  ApiSecurity,
  ApiTags,
} from '@nestjs/swagger';
import type { Request, Response } from 'express';
import { SECURITY, sessionOf } from '@app/auth';
import { AppConfig } from '@app/config';
import { actorOf } from './audit';
import { setSessionCookie } from './auth.controller';
import { AcceptedInvitationDto, AcceptInvitationDto, InvitationPreviewDto } from './dto/teams.dto';
import { SessionsService } from './sessions.service';
import { TeamPeopleService } from './team-people.service';

@ApiTags('Teams')
@Controller('api/v1/invitations')
export class InvitationsController {
  constructor(
    private readonly people: TeamPeopleService,
    private readonly sessions: SessionsService,
    private readonly config: AppConfig,
  ) {}

  @Get(':token')
  @ApiOperation({
    summary: 'What an invitation is for (public: the token is the credential)',
    description:
      'The team, who invited, the invited e-mail, the role and the password rule, so the invitation page can show them before anything is typed. Changes nothing.',
  })
  @ApiOkResponse({ type: InvitationPreviewDto })
  @ApiNotFoundResponse({ description: 'invitation_not_found' })
  @ApiGoneResponse({ description: 'invitation_invalid: used, revoked or expired' })
  preview(@Param('token') token: string): Promise<InvitationPreviewDto> {
    return this.people.preview(token);
  }

  @Post(':token/accept')
  @HttpCode(200)
  @ApiSecurity(SECURITY.session)
  @ApiSecurity(SECURITY.csrf)
  @ApiOperation({
    summary: 'Accept an invitation',
    description:
      'Signed in: joins with your account, whose e-mail must be the invited one (403 invitation_email_mismatch otherwise; an operator may accept any invitation, which the audit log records as an override). Otherwise creates your account from {name, password} (the invited e-mail) and signs you in. One use; 410 invitation_invalid once used, revoked or expired.',
  })
  @ApiOkResponse({ type: AcceptedInvitationDto })
  async accept(
    @Param('token') token: string,
    @Body() body: AcceptInvitationDto,
    @Req() req: Request,
    @Res({ passthrough: true }) res: Response,
  ): Promise<AcceptedInvitationDto> {
    const session = sessionOf(req);
    const actor = actorOf(req);
    const { result, newUser } = await this.people.accept(token, body, session ?? null, actor);
    if (newUser) {
      const opened = await this.sessions.open(newUser, 'invitation', actor);
      setSessionCookie(res, req, opened.token, this.config.accounts.sessionMaxAgeMs);
    }
    return result;
  }
}
