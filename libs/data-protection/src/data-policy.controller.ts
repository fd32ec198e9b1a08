import { Body, Controller, Get, Param, Put, Req } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { PeopleAuth, TeamAccess } from '@app/accounts';
import { actorOf } from '@app/accounts/audit';
import { DataPolicyService } from './data-policy.service';
import { DataPolicyDto, PutDataPolicyDto } from './dto/data-policy.dto';

/** A team's data policy: where its requests may go and what personal data may leave (owner, admin or the operator). */
@ApiTags('Teams')
@PeopleAuth()
@Controller('api/v1/teams/:team_id/data-policy')
export class DataPolicyController {
  constructor(private readonly policies: DataPolicyService) {}

  @Put()
  @TeamAccess('admin')
  @ApiOperation({
    summary:
      'Set the team’s data policy (owner or admin): residency, masking or blocking of personal data, entities, custom patterns, allow list',
  })
  @ApiOkResponse({ type: DataPolicyDto })
  @ApiResponse({ status: 400, description: 'invalid_pattern: a custom pattern is rejected' })
  put(@Param('team_id') teamId: string, @Body() body: PutDataPolicyDto, @Req() req: Request): Promise<DataPolicyDto> {
    return this.policies.put(teamId, body, actorOf(req));
  }

  @Get()
  @TeamAccess('admin')
  @ApiOperation({ summary: 'The team’s data policy (owner or admin; the open default until one is set)' })
  @ApiOkResponse({ type: DataPolicyDto })
  get(@Param('team_id') teamId: string): Promise<DataPolicyDto> {
    return this.policies.get(teamId);
  }
}
