import { Body, Controller, Delete, Get, Param, Post, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiResponse, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AdminAuth } from '@app/auth';
import { CurrentPrincipal, PeopleAuth, Principal, TeamAccess } from '@app/accounts';
import {
  CodeBatchListDto,
  CreateCodesDto,
  CreatedCodesDto,
  RedeemDto,
  RedeemResultDto,
  RedemptionCodeDto,
} from './dto/codes.dto';
import { RedemptionCodesService } from './redemption-codes.service';

@ApiTags('Admin')
@AdminAuth()
@Controller('api/v1/admin/redemption-codes')
export class RedemptionCodesAdminController {
  constructor(private readonly codes: RedemptionCodesService) {}

  @Post()
  @ApiOperation({ summary: 'Make a batch of redemption codes (shown this once)' })
  @ApiCreatedResponse({ type: CreatedCodesDto })
  create(@Body() body: CreateCodesDto): Promise<CreatedCodesDto> {
    return this.codes.create(body);
  }

  @Get()
  @ApiOperation({ summary: 'Batches of codes and their use' })
  @ApiOkResponse({ type: CodeBatchListDto })
  list(): Promise<CodeBatchListDto> {
    return this.codes.list();
  }

  @Delete(':id')
  @ApiOperation({ summary: 'Disable an unused code' })
  @ApiOkResponse({ type: RedemptionCodeDto })
  @ApiResponse({ status: 409, description: 'code_used' })
  disable(@Param('id') id: string): Promise<RedemptionCodeDto> {
    return this.codes.disable(id);
  }
}

@ApiTags('Payments')
@PeopleAuth()
@Controller('api/v1/teams')
export class RedeemController {
  constructor(private readonly codes: RedemptionCodesService) {}

  @Post(':team_id/redeem')
  @TeamAccess('member')
  @ApiOperation({ summary: "Redeem a code into the team's balance" })
  @ApiCreatedResponse({ type: RedeemResultDto })
  @ApiResponse({ status: 404, description: 'code_invalid' })
  @ApiResponse({ status: 409, description: 'code_used' })
  @ApiResponse({ status: 410, description: 'code_expired' })
  @ApiResponse({ status: 429, description: 'too many failed attempts (per user and per client address)' })
  redeem(
    @Param('team_id') teamId: string,
    @Body() body: RedeemDto,
    @CurrentPrincipal() p: Principal,
    @Req() req: Request,
  ): Promise<RedeemResultDto> {
    return this.codes.redeem(teamId.toLowerCase(), body.code, {
      userId: p.kind === 'session' ? p.session.userId : null,
      ip: req.ip,
    });
  }
}
