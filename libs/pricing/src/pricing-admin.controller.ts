import { Body, Controller, Delete, Get, Param, Put, Query, Req } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { AdminAuth } from '@app/auth';
import { actorOf } from '@app/accounts/audit';
import { RefuseUnknownMembers } from '@app/common';
import { CatalogAdminService } from './catalog-admin.service';
import {
  AdminCatalogDto,
  AdminCatalogModelDto,
  AdminCatalogQueryDto,
  PutCatalogModelDto,
} from './dto/catalog-admin.dto';
import { PutTeamPricingDto, TeamModelPricesDto, TeamPricingDto } from './dto/team-pricing.dto';
import { TeamPricingService } from './team-pricing.service';

@ApiTags('Pricing (operator)')
@ApiExtraModels(TeamModelPricesDto)
@AdminAuth()
@Controller('api/v1/admin')
export class PricingAdminController {
  constructor(
    private readonly catalog: CatalogAdminService,
    private readonly teams: TeamPricingService,
  ) {}

  @Get('models')
  @ApiOperation({
    summary:
      'The effective catalog (built-in + MODELS_FILE + database overrides), each entry with where its prices come from',
  })
  @ApiOkResponse({ type: AdminCatalogDto })
  list(@Query() query: AdminCatalogQueryDto): AdminCatalogDto {
    return this.catalog.list(query);
  }

  @Put('models/:model')
  @ApiParam({ name: 'model', example: 'dall-e-3' })
  @RefuseUnknownMembers(PutCatalogModelDto)
  @ApiOperation({
    summary:
      'Override a model’s prices, currency, enabled flag, aliases or fallbacks (applies to requests that start afterwards)',
  })
  @ApiOkResponse({ type: AdminCatalogModelDto })
  put(
    @Param('model') model: string,
    @Body() body: PutCatalogModelDto,
    @Req() req: Request,
  ): Promise<AdminCatalogModelDto> {
    return this.catalog.put(model, body, actorOf(req));
  }

  @Delete('models/:model')
  @ApiParam({ name: 'model', example: 'dall-e-3' })
  @ApiOperation({ summary: 'Drop a model’s database override (back to the built-in / MODELS_FILE entry)' })
  @ApiOkResponse({ type: AdminCatalogModelDto })
  remove(@Param('model') model: string, @Req() req: Request): Promise<AdminCatalogModelDto> {
    return this.catalog.remove(model, actorOf(req));
  }

  @Get('teams/:team_id/pricing')
  @ApiOperation({ summary: 'A team’s discount, markup and own model prices, with the RUB prices it pays today' })
  @ApiOkResponse({ type: TeamPricingDto })
  getTeam(@Param('team_id') teamId: string): Promise<TeamPricingDto> {
    return this.teams.get(teamId);
  }

  @Put('teams/:team_id/pricing')
  @RefuseUnknownMembers(PutTeamPricingDto)
  @ApiOperation({
    summary: 'Set a team’s discount, markup and own model prices (applies to requests that start afterwards)',
  })
  @ApiOkResponse({ type: TeamPricingDto })
  putTeam(
    @Param('team_id') teamId: string,
    @Body() body: PutTeamPricingDto,
    @Req() req: Request,
  ): Promise<TeamPricingDto> {
    return this.teams.put(teamId, body, actorOf(req));
  }
}
