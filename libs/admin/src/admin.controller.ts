import { Body, Controller, Delete, Get, HttpCode, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import { ApiCreatedResponse, ApiNoContentResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '@app/common';
import { AdminAuth } from '@app/auth';
import { AdminService } from './admin.service';
import { CreateApiKeyDto, CreatedApiKeyDto, CreateTeamDto, TeamDetailsDto, TeamDto, TopUpDto, TopUpResultDto } from './dto/admin.dto';

const uuid = new ParseUUIDPipe({ exceptionFactory: () => ApiError.notFound('No such id.', 'not_found', 'id') });

@ApiTags('Admin')
@AdminAuth()
@Controller('api/v1/admin')
export class AdminController {
  constructor(private readonly admin: AdminService) {}

  @Post('teams')
  @ApiOperation({ summary: 'Create a team workspace' })
  @ApiCreatedResponse({ type: TeamDto })
  createTeam(@Body() body: CreateTeamDto): Promise<TeamDto> {
    return this.admin.createTeam(body.name, body.balance_rub ?? 0);
  }

  @Get('teams/:id')
  @ApiOperation({ summary: 'Get a team workspace' })
  @ApiOkResponse({ type: TeamDetailsDto })
  getTeam(@Param('id', uuid) id: string): Promise<TeamDetailsDto> {
    return this.admin.getTeam(id);
  }

  @Post('teams/:id/api-keys')
  @ApiOperation({ summary: 'Issue an API key for a team (the key is shown once)' })
  @ApiCreatedResponse({ type: CreatedApiKeyDto })
  createKey(@Param('id', uuid) id: string, @Body() body: CreateApiKeyDto): Promise<CreatedApiKeyDto> {
    return this.admin.createKey(id, body.name ?? null);
  }

  @Delete('api-keys/:id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Revoke an API key (effective on every replica within 5 s)' })
  @ApiNoContentResponse({ description: 'Revoked' })
  async revokeKey(@Param('id', uuid) id: string): Promise<void> {
    await this.admin.revokeKey(id);
  }

  @Post('teams/:id/top-ups')
  @HttpCode(200)
  @ApiOperation({ summary: 'Add funds to a team balance (idempotent by reference)' })
  @ApiOkResponse({ type: TopUpResultDto })
  topUp(@Param('id', uuid) id: string, @Body() body: TopUpDto): Promise<TopUpResultDto> {
    return this.admin.topUp(id, body.amount_rub, body.reference ?? null);
  }
}
