import { Controller, Get, Param, ParseUUIDPipe, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import { ApiError } from '@app/common';
import { AdminAuth } from '@app/auth';
import { ReportsService } from './reports.service';
import { AllTeamsUsageDto, AllTeamsUsageQueryDto, TopUpListDto, TopUpsQueryDto } from './reports.dto';

const uuid = new ParseUUIDPipe({ exceptionFactory: () => ApiError.notFound('No such id.', 'not_found', 'id') });

@ApiTags('Admin')
@AdminAuth()
@Controller('api/v1/admin')
export class ReportsController {
  constructor(private readonly reports: ReportsService) {}

  @Get('usage')
  @ApiOperation({
    summary: 'Spend of every team per UTC day, per team, and the top models over [from, to) (at most 366 days)',
  })
  @ApiOkResponse({ type: AllTeamsUsageDto })
  allTeamsUsage(@Query() q: AllTeamsUsageQueryDto): Promise<AllTeamsUsageDto> {
    return this.reports.allTeamsUsage(q);
  }

  @Get('teams/:id/top-ups')
  @ApiOperation({ summary: "A team's top-ups, newest first, with the note and who made it (cursor `before`)" })
  @ApiOkResponse({ type: TopUpListDto })
  topUps(@Param('id', uuid) id: string, @Query() q: TopUpsQueryDto): Promise<TopUpListDto> {
    return this.reports.topUps(id, q.limit ?? 50, q.before);
  }
}
