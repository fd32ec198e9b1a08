import { Global, Module } from '@nestjs/common';
import { McpToolHost } from '@app/chat/mcp/ports';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AccountsModule, PrincipalGuard } from '@app/accounts';
import { AuditModule } from '@app/accounts/audit';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { McpServerEntity } from './entities/mcp-server.entity';
import { McpEndpoint } from './mcp-endpoint';
import { McpEndpointController } from './mcp-endpoint.controller';
import { McpGateway } from './mcp-gateway.service';
import { McpSecrets } from './mcp-secrets';
import { McpServersController } from './mcp-servers.controller';
import { McpServersRepository } from './mcp-servers.repository';
import { McpServersService } from './mcp-servers.service';
import { McpUpstream } from './mcp-upstream';
import { McpResponseTools } from './mcp-response-tools';

/**
 * The MCP gateway: the team's server registry, the gateway's own /mcp endpoint, and the remote MCP
 * tools of /v1/responses (chat's McpToolHost port). Global, so the port reaches chat without chat
 * importing this module.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([McpServerEntity]), AuthModule, BillingModule, AuditModule, AccountsModule],
  controllers: [McpServersController, McpEndpointController],
  providers: [
    PrincipalGuard,
    McpServersRepository,
    McpSecrets,
    McpServersService,
    McpUpstream,
    McpGateway,
    McpEndpoint,
    McpResponseTools,
    { provide: McpToolHost, useExisting: McpResponseTools },
  ],
  exports: [McpServersService, McpUpstream, McpGateway, McpToolHost],
})
export class McpModule {}
