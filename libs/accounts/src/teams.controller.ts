import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query, Req } from '@nestjs/common';
import {
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiError } from '@app/common';
import { AdminService } from '@app/admin';
import {
  ApiKeyDto,
  ApiKeyListDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  RotateApiKeyDto,
  RotatedApiKeyDto,
  TeamLimitsDto,
  UpdateApiKeyDto,
} from '@app/admin/dto/admin.dto';
import {
  BalanceResponseDto,
  BillingService,
  UsageQueryDto,
  UsageResponseDto,
  UsageSummaryQueryDto,
  UsageSummaryResponseDto,
  UsageSummaryService,
} from '@app/billing';
import { roleAtLeast } from '@app/auth';
import { CurrentPrincipal, PeopleAuth, Principal, TeamAccess } from './access';
import { AccountsService } from './accounts.service';
import { actorOf } from './audit';
import { RoleDto } from './dto/auth.dto';
import {
  CreatedInvitationDto,
  CreateInvitationDto,
  InvitationListDto,
  MemberDto,
  MemberListDto,
  MyTeamListDto,
  UpdateTeamSettingsDto,
} from './dto/teams.dto';
import { roleIn, TeamPeopleService } from './team-people.service';

/**
 * The team-scoped API for people: reachable with a session (the role in the team decides) or the
 * operator token. Another team's id answers 404 as if it did not exist.
 */
@ApiTags('Teams')
@PeopleAuth()
@Controller('api/v1/teams')
export class TeamsController {
  constructor(
    private readonly accounts: AccountsService,
    private readonly people: TeamPeopleService,
    private readonly admin: AdminService,
    private readonly billing: BillingService,
    private readonly summaries: UsageSummaryService,
  ) {}

  @Get()
  @ApiOperation({ summary: 'My teams with my role (operators: every team)' })
  @ApiOkResponse({ type: MyTeamListDto })
  async mine(@CurrentPrincipal() p: Principal): Promise<MyTeamListDto> {
    return { object: 'list', data: await this.accounts.myTeams(p.kind === 'session' ? p.session : null) };
  }

  @Get(':team_id')
  @TeamAccess('viewer')
  @ApiOperation({ summary: 'A team: balance, limits' })
  @ApiOkResponse({ type: TeamLimitsDto })
  get(@Param('team_id') teamId: string): Promise<TeamLimitsDto> {
    return this.admin.getTeam(teamId);
  }

  @Patch(':team_id')
  @TeamAccess('admin')
  @ApiOperation({ summary: 'Team settings (admin): rename, request log level and retention, ad-hoc MCP servers' })
  @ApiOkResponse({ type: TeamLimitsDto })
  update(
    @Param('team_id') teamId: string,
    @Body() body: UpdateTeamSettingsDto,
    @Req() req: Request,
  ): Promise<TeamLimitsDto> {
    return this.admin.updateTeam(
      teamId,
      {
        name: body.name,
        request_log_bodies: body.request_log_bodies,
        request_log_retention_days: body.request_log_retention_days,
        request_log_body_retention_days: body.request_log_body_retention_days,
        mcp_adhoc_servers: body.mcp_adhoc_servers,
      },
      actorOf(req),
    );
  }

  @Delete(':team_id')
  @HttpCode(204)
  @TeamAccess('owner')
  @ApiOperation({
    summary:
      'Delete the team (owner): its keys are revoked, members removed, pending invitations revoked; 409 while it has a positive balance or open holds',
  })
  @ApiNoContentResponse({ description: 'Deleted' })
  @ApiResponse({ status: 409, description: 'team_has_balance or team_has_holds' })
  async deleteTeam(@Param('team_id') teamId: string, @Req() req: Request): Promise<void> {
    await this.people.deleteTeam(actorOf(req), teamId);
  }

  // ---- members ----

  @Get(':team_id/members')
  @TeamAccess('viewer')
  @ApiOperation({ summary: 'Members and their roles' })
  @ApiOkResponse({ type: MemberListDto })
  async members(@Param('team_id') teamId: string): Promise<MemberListDto> {
    return { object: 'list', data: await this.people.members(teamId) };
  }

  @Patch(':team_id/members/:user_id')
  @TeamAccess('admin')
  @ApiOperation({
    summary: "Change a member's role (admin; the owner role is granted or taken by an owner: that transfers ownership)",
  })
  @ApiOkResponse({ type: MemberDto })
  setRole(
    @CurrentPrincipal() p: Principal,
    @Param('team_id') teamId: string,
    @Param('user_id') userId: string,
    @Body() body: RoleDto,
    @Req() req: Request,
  ): Promise<MemberDto> {
    return this.people.setRole(p, actorOf(req), teamId, userId, body.role);
  }

  @Delete(':team_id/members/:user_id')
  @HttpCode(204)
  @TeamAccess('viewer')
  @ApiOperation({ summary: 'Remove a member (admin), or leave the team (yourself). The last owner cannot leave.' })
  @ApiNoContentResponse({ description: 'Removed' })
  async remove(
    @CurrentPrincipal() p: Principal,
    @Param('team_id') teamId: string,
    @Param('user_id') userId: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.people.remove(p, actorOf(req), teamId, userId);
  }

  // ---- invitations ----

  @Post(':team_id/invitations')
  @TeamAccess('admin')
  @ApiOperation({ summary: 'Invite someone by e-mail with a role (e-mailed when SMTP is configured)' })
  @ApiCreatedResponse({ type: CreatedInvitationDto })
  invite(
    @CurrentPrincipal() p: Principal,
    @Param('team_id') teamId: string,
    @Body() body: CreateInvitationDto,
    @Req() req: Request,
  ): Promise<CreatedInvitationDto> {
    return this.people.invite(actorOf(req), teamId, body.email, body.role, p);
  }

  @Get(':team_id/invitations')
  @TeamAccess('admin')
  @ApiOperation({ summary: 'Invitations of the team (pending, accepted, revoked, expired)' })
  @ApiOkResponse({ type: InvitationListDto })
  async invitations(@Param('team_id') teamId: string): Promise<InvitationListDto> {
    return { object: 'list', data: await this.people.invitations(teamId) };
  }

  @Delete(':team_id/invitations/:id')
  @HttpCode(204)
  @TeamAccess('admin')
  @ApiOperation({ summary: 'Revoke a pending invitation' })
  @ApiNoContentResponse({ description: 'Revoked' })
  async revokeInvitation(
    @Param('team_id') teamId: string,
    @Param('id') id: string,
    @Req() req: Request,
  ): Promise<void> {
    await this.people.revokeInvitation(actorOf(req), teamId, id);
  }

  // ---- API keys ----

  @Get(':team_id/api-keys')
  @TeamAccess('viewer')
  @ApiOperation({ summary: "The team's API keys (never the secrets)" })
  @ApiOkResponse({ type: ApiKeyListDto })
  keys(@Param('team_id') teamId: string): Promise<ApiKeyListDto> {
    return this.admin.listKeys(teamId);
  }

  @Post(':team_id/api-keys')
  @TeamAccess('member')
  @ApiOperation({ summary: 'Issue an API key (member; shown once), optionally with an expiry and a model allowlist' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  createKey(
    @CurrentPrincipal() p: Principal,
    @Param('team_id') teamId: string,
    @Body() body: CreateApiKeyDto,
    @Req() req: Request,
  ): Promise<CreatedApiKeyDto> {
    return this.admin.createKey(teamId, body.name ?? null, {
      createdBy: p.kind === 'session' ? p.session.userId : null,
      expiresAt: body.expires_at ?? null,
      allowedModels: body.allowed_models,
      dataPolicy: body.data_policy,
      allowedMcpTools: body.allowed_mcp_tools,
      actor: actorOf(req),
    });
  }

  @Patch(':team_id/api-keys/:key_id')
  @TeamAccess('admin')
  @ApiOperation({ summary: 'Set limits, budgets, model allowlist or expiry of any key of the team (admin)' })
  @ApiOkResponse({ type: ApiKeyDto })
  async updateKey(
    @Param('team_id') teamId: string,
    @Param('key_id') keyId: string,
    @Body() body: UpdateApiKeyDto,
    @Req() req: Request,
  ): Promise<ApiKeyDto> {
    await this.keyOfTeam(teamId, keyId);
    return this.admin.updateKey(keyId, body, actorOf(req));
  }

  @Post(':team_id/api-keys/:key_id/rotate')
  @HttpCode(201)
  @TeamAccess('admin')
  @ApiOperation({
    summary:
      'Rotate a key (admin): a new secret (shown once) with the same settings; the old one works for grace_seconds more',
  })
  @ApiCreatedResponse({ type: RotatedApiKeyDto })
  async rotateKey(
    @Param('team_id') teamId: string,
    @Param('key_id') keyId: string,
    @Body() body: RotateApiKeyDto,
    @Req() req: Request,
  ): Promise<RotatedApiKeyDto> {
    await this.keyOfTeam(teamId, keyId);
    return this.admin.rotateKey(keyId, body.grace_seconds, actorOf(req));
  }

  @Delete(':team_id/api-keys/:key_id')
  @HttpCode(204)
  @TeamAccess('member')
  @ApiOperation({ summary: 'Revoke a key: your own (member) or any of the team (admin)' })
  @ApiNoContentResponse({ description: 'Revoked' })
  async revokeKey(
    @CurrentPrincipal() p: Principal,
    @Param('team_id') teamId: string,
    @Param('key_id') keyId: string,
    @Req() req: Request,
  ): Promise<void> {
    const key = await this.keyOfTeam(teamId, keyId);
    const own = p.kind === 'session' && key.created_by === p.session.userId;
    if (!own && !roleAtLeast(roleIn(p, teamId), 'admin'))
      throw ApiError.forbidden(
        'Members revoke only the keys they created; this needs the admin role.',
        'insufficient_role',
      );
    await this.admin.revokeKey(keyId, actorOf(req));
  }

  private async keyOfTeam(teamId: string, keyId: string): Promise<ApiKeyDto> {
    const notFound = ApiError.notFound(`API key ${keyId} not found.`, 'api_key_not_found', 'key_id');
    if (!/^[0-9a-f-]{36}$/i.test(keyId)) throw notFound;
    const key = await this.admin.getKey(keyId).catch(() => null);
    if (!key || key.team_id !== teamId) throw notFound;
    return key;
  }

  // ---- money ----

  @Get(':team_id/balance')
  @TeamAccess('viewer')
  @ApiOperation({ summary: "The team's balance" })
  @ApiOkResponse({ type: BalanceResponseDto })
  balance(@Param('team_id') teamId: string): Promise<BalanceResponseDto> {
    return this.billing.balanceView(teamId);
  }

  @Get(':team_id/usage')
  @TeamAccess('viewer')
  @ApiOperation({ summary: "The team's usage entries, newest first (as GET /api/v1/usage)" })
  @ApiOkResponse({ type: UsageResponseDto })
  usage(@Param('team_id') teamId: string, @Query() q: UsageQueryDto): Promise<UsageResponseDto> {
    return this.billing.usagePage(teamId, q.limit ?? 50, q.before);
  }

  @Get(':team_id/usage/summary')
  @TeamAccess('viewer')
  @ApiOperation({ summary: "The team's usage grouped by model, UTC day, API key or endpoint" })
  @ApiOkResponse({ type: UsageSummaryResponseDto })
  usageSummary(@Param('team_id') teamId: string, @Query() q: UsageSummaryQueryDto): Promise<UsageSummaryResponseDto> {
    return this.summaries.summary(teamId, q);
  }

  @Get(':team_id/ledger')
  @TeamAccess('viewer')
  @ApiOperation({ summary: "The team's ledger (charges and top-ups), newest first, cursor `before`" })
  @ApiOkResponse({ type: UsageResponseDto })
  ledger(@Param('team_id') teamId: string, @Query() q: UsageQueryDto): Promise<UsageResponseDto> {
    return this.billing.usagePage(teamId, q.limit ?? 50, q.before);
  }
}
