import { Body, Controller, Headers, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiHeader, ApiOkResponse, ApiOperation, ApiParam, ApiTags } from '@nestjs/swagger';
import { WebhookAckDto } from './dto/projects.dto';
import { IntegrationsService } from './integrations/integrations.service';

/** Webhook deliveries to project integrations: no API key, authenticated by the Standard Webhooks signature. */
@ApiTags('Projects')
@Controller('api/v1/hooks')
export class WebhooksController {
  constructor(private readonly integrations: IntegrationsService) {}

  @Post(':integration_id')
  @HttpCode(200)
  @ApiParam({ name: 'integration_id', example: 'int_1a2b3c4d5e6f7a8b9c0d1e2f' })
  @ApiHeader({
    name: 'webhook-id',
    required: true,
    description: 'Unique per event; a repeated id is acknowledged and not stored again',
  })
  @ApiHeader({
    name: 'webhook-timestamp',
    required: true,
    description: 'Unix seconds; within 5 minutes of the server time',
  })
  @ApiHeader({
    name: 'webhook-signature',
    required: true,
    description: '`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, several space-separated',
  })
  @ApiBody({
    schema: { type: 'object', example: { type: 'ticket.created', data: { id: 42, subject: 'Cannot log in' } } },
    description: 'Any JSON or text, ≤ 256 KB',
  })
  @ApiOperation({
    summary: 'Receive a signed webhook event; it becomes material text of the project (newest 500 kept)',
  })
  @ApiOkResponse({ type: WebhookAckDto })
  receive(
    @Param('integration_id') id: string,
    @Headers('webhook-id') webhookId: string | undefined,
    @Headers('webhook-timestamp') timestamp: string | undefined,
    @Headers('webhook-signature') signature: string | undefined,
    @Body() body: unknown,
  ): Promise<WebhookAckDto> {
    return this.integrations.receive(id, { id: webhookId, timestamp, signature }, body);
  }
}
