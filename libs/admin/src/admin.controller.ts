import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Patch, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { actorOf } from '@app/accounts/audit';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '@app/common';
import { AdminAuth } from '@app/auth';
import { AdminService } from './admin.service';
import { UsageSummaryQueryDto, UsageSummaryResponseDto } from '@app/billing';
import {
  ApiKeyDto,
  ApiKeyListDto,
  CreateApiKeyDto,
  CreatedApiKeyDto,
  CreateTeamDto,
  TeamDto,
  TeamLimitsDto,
  TeamListDto,
  TeamListQueryDto,
  TopUpDto,
  TopUpResultDto,
  UpdateApiKeyDto,
  UpdateTeamDto,
} from './dto/admin.dto';

const uuid = new ParseUUIDPipe({ exceptionFactory: () => ApiError.notFound('No such id.', 'not_found', 'id') });

@ApiTags('Admin')
@AdminAuth()
@Controller('api/v1/admin')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Post('teams')
  @ApiOperation({ summary: 'Create a team workspace' })
  @ApiCreatedResponse({ type: TeamDto })
  createTeam(@Body() body: CreateTeamDto, @Req() req: Request): Promise<TeamDto> {
    return this.admin.createTeam(body.name, body.balance_rub ?? 0, actorOf(req));
  }

  @Get('teams')
  @ApiOperation({ summary: 'List team workspaces (id order, cursor pagination with `after`)' })
  @ApiOkResponse({ type: TeamListDto })
  listTeams(@Query() q: TeamListQueryDto): Promise<TeamListDto> {
    return this.admin.listTeams(q.limit ?? 100, q.after);
  }

  @Get('teams/:id')
  @ApiOperation({ summary: 'Get a team workspace' })
  @ApiOkResponse({ type: TeamLimitsDto })
  getTeam(@Param('id', uuid) id: string): Promise<TeamLimitsDto> {
    return this.admin.getTeam(id);
  }

  @Patch('teams/:id')
  @ApiOperation({ summary: 'Rename a team or set its rate limits (null removes a limit)' })
  @ApiOkResponse({ type: TeamLimitsDto })
  updateTeam(@Param('id', uuid) id: string, @Body() body: UpdateTeamDto, @Req() req: Request): Promise<TeamLimitsDto> {
    return this.admin.updateTeam(id, body, actorOf(req));
  }

  @Get('teams/:id/api-keys')
  @ApiOperation({ summary: "A team's API keys (prefix, name, created, last used, limits, budgets, revoked)" })
  @ApiOkResponse({ type: ApiKeyListDto })
  listKeys(@Param('id', uuid) id: string): Promise<ApiKeyListDto> {
    return this.admin.listKeys(id);
  }

  @Get('teams/:id/usage/summary')
  @ApiOperation({
    summary: "A team's usage grouped by model, UTC day, API key or endpoint over [from, to) (at most 366 days)",
  })
  @ApiOkResponse({ type: UsageSummaryResponseDto })
  usageSummary(@Param('id', uuid) id: string, @Query() q: UsageSummaryQueryDto): Promise<UsageSummaryResponseDto> {
    return this.admin.usageSummary(id, q);
  }

  @Get('api-keys/:id')
  @ApiOperation({ summary: 'Get an API key (never the secret)' })
  @ApiOkResponse({ type: ApiKeyDto })
  getKey(@Param('id', uuid) id: string): Promise<ApiKeyDto> {
    return this.admin.getKey(id);
  }

  @Patch('api-keys/:id')
  @ApiOperation({ summary: 'Rename an API key or set its rate limits and RUB budgets (null removes one)' })
  @ApiOkResponse({ type: ApiKeyDto })
  updateKey(@Param('id', uuid) id: string, @Body() body: UpdateApiKeyDto, @Req() req: Request): Promise<ApiKeyDto> {
    return this.admin.updateKey(id, body, actorOf(req));
  }

  @Post('teams/:id/api-keys')
  @ApiOperation({ summary: 'Issue an API key for a team (the key is shown once)' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  createKey(
    @Param('id', uuid) id: string,
    @Body() body: CreateApiKeyDto,
    @Req() req: Request,
  ): Promise<CreatedApiKeyDto> {
    const actor = actorOf(req);
    return this.admin.createKey(id, body.name ?? null, {
      createdBy: actor.type === 'user' ? actor.id : null,
      expiresAt: body.expires_at ?? null,
      allowedModels: body.allowed_models,
      dataPolicy: body.data_policy,
      allowedMcpTools: body.allowed_mcp_tools,
      actor,
    });
  }

  @Delete('api-keys/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key (effective on every replica within 5 s)' })
  @ApiNoContentResponse({ description: 'Revoked' })
  async revokeKey(@Param('id', uuid) id: string, @Req() req: Request): Promise<void> {
    await this.admin.revokeKey(id, actorOf(req));
  }

  @Post('teams/:id/top-ups')
  @HttpCode(200)
  @ApiOperation({ summary: 'Add funds to a team balance (idempotent by reference), with an optional note' })
  @ApiOkResponse({ type: TopUpResultDto })
  topUp(@Param('id', uuid) id: string, @Body() body: TopUpDto, @Req() req: Request): Promise<TopUpResultDto> {
    return this.admin.topUp(id, body.amount_rub, body.reference ?? null, body.note ?? null, actorOf(req));
  }
}
