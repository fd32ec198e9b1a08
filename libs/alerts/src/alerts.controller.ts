import { Body, Controller, Delete, Get, HttpCode, Param, Patch, Post, Query } from '@nestjs/common';
import {
  ApiBody,
  ApiCreatedResponse,
  ApiNoContentResponse,
  ApiOkResponse,
  ApiOperation,
  ApiResponse,
  ApiTags,
} from '@nestjs/swagger';
import { RefuseUnknownMembers } from '@app/common';
import { TeamAdminOrKeyAuth } from './alerts-access';
import { AlertsService } from './alerts.service';
import {
  AlertEventDto,
  AlertEventListDto,
  AlertEventQueryDto,
  AlertRuleDto,
  AlertRuleListDto,
  CreateAlertDto,
  UpdateAlertDto,
} from './dto/alerts.dto';

/** Request examples; the first of each list is what /docs fills in (it needs no network to create). */
const CREATE_EXAMPLES = {
  telegram: {
    summary: 'Balance below 50 RUB, to a Telegram chat',
    value: {
      kind: 'balance_below',
      threshold_rub: 50,
      channels: [{ type: 'telegram', bot_token: '123456:ABC-DEF1234ghIkl', chat_id: '-1001234567890' }],
    },
  },
  budget: {
    summary: "80 % and 100 % of a key's monthly budget, to a webhook and by e-mail in Russian",
    value: {
      kind: 'budget_used',
      api_key_id: '7d444840-9dc0-11d1-b245-5ffdce74fad2',
      period: 'month',
      percent: [80, 100],
      channels: [
        { type: 'webhook', url: 'https://ops.example.com/hooks/gateway' },
        { type: 'email', to: ['ops@example.com'], language: 'ru' },
      ],
    },
  },
  errors: {
    summary: 'More than 20 % of requests failing in 5 minutes',
    value: {
      kind: 'error_rate',
      percent: 20,
      window_minutes: 5,
      channels: [{ type: 'webhook', url: 'https://ops.example.com/hooks/gateway' }],
    },
  },
};
const UPDATE_EXAMPLES = {
  threshold: { summary: 'Another threshold', value: { threshold_rub: 40 } },
  pause: { summary: 'Pause the rule', value: { enabled: false } },
};

/** A team's alert rules and the events they fired. */
@ApiTags('Alerts')
@TeamAdminOrKeyAuth()
@Controller('api/v1/teams/:team_id/alerts')
export class AlertsController {
  constructor(private readonly alerts: AlertsService) {}

  @Post()
  @RefuseUnknownMembers(CreateAlertDto)
  @ApiBody({ type: CreateAlertDto, examples: CREATE_EXAMPLES })
  @ApiOperation({ summary: 'Create an alert rule (a webhook channel answers its signing secret once)' })
  @ApiCreatedResponse({ type: AlertRuleDto })
  @ApiResponse({ status: 400, description: 'Invalid rule or channel (e.g. a webhook URL the SSRF guard refuses)' })
  create(@Param('team_id') teamId: string, @Body() body: CreateAlertDto): Promise<AlertRuleDto> {
    return this.alerts.create(teamId.toLowerCase(), body);
  }

  @Get()
  @ApiOperation({ summary: "The team's alert rules" })
  @ApiOkResponse({ type: AlertRuleListDto })
  list(@Param('team_id') teamId: string): Promise<AlertRuleListDto> {
    return this.alerts.list(teamId.toLowerCase());
  }

  @Get('events')
  @ApiOperation({ summary: 'Fired alerts with their deliveries and every attempt, newest first' })
  @ApiOkResponse({ type: AlertEventListDto })
  events(@Param('team_id') teamId: string, @Query() q: AlertEventQueryDto): Promise<AlertEventListDto> {
    return this.alerts.events(teamId.toLowerCase(), q);
  }

  @Get(':alert_id')
  @ApiOperation({ summary: 'One alert rule' })
  @ApiOkResponse({ type: AlertRuleDto })
  get(@Param('team_id') teamId: string, @Param('alert_id') id: string): Promise<AlertRuleDto> {
    return this.alerts.get(teamId.toLowerCase(), id);
  }

  @Patch(':alert_id')
  @RefuseUnknownMembers(UpdateAlertDto)
  @ApiBody({ type: UpdateAlertDto, examples: UPDATE_EXAMPLES })
  @ApiOperation({
    summary: 'Edit an alert rule (channels, when given, replace the list; a kept webhook URL keeps its secret)',
  })
  @ApiOkResponse({ type: AlertRuleDto })
  update(
    @Param('team_id') teamId: string,
    @Param('alert_id') id: string,
    @Body() body: UpdateAlertDto,
  ): Promise<AlertRuleDto> {
    return this.alerts.update(teamId.toLowerCase(), id, body);
  }

  @Post(':alert_id/test')
  @HttpCode(201)
  @ApiOperation({
    summary: 'Send a test through every channel of the rule now (an event marked test, with its deliveries)',
  })
  @ApiCreatedResponse({ type: AlertEventDto })
  sendTest(@Param('team_id') teamId: string, @Param('alert_id') id: string): Promise<AlertEventDto> {
    return this.alerts.sendTest(teamId.toLowerCase(), id);
  }

  @Delete(':alert_id')
  @HttpCode(204)
  @ApiOperation({ summary: 'Delete an alert rule (its events stay listed)' })
  @ApiNoContentResponse()
  async remove(@Param('team_id') teamId: string, @Param('alert_id') id: string): Promise<void> {
    await this.alerts.remove(teamId.toLowerCase(), id);
  }
}
