import { DynamicModule, Module } from '@nestjs/common';
import type { Type } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { AuthModule } from '@app/auth';
import { BillingModule } from '@app/billing';
import { ProvidersModule } from '@app/providers';
import { ChatContextService } from './context/chat-context.service';
import { FileUrlResolver } from './context/file-urls';
import { ChatController } from './chat.controller';
import { ChatService } from './chat.service';
import { CompletionsController } from './completions.controller';
import { MessagesController } from './anthropic/messages.controller';
import { MessagesService } from './anthropic/messages.service';
import { CompletionsService } from './completions.service';
import { ImageInliner } from './image-inliner';
import { ResponsesController } from './responses.controller';
import { ResponsesService } from './responses.service';
import { McpToolLoop } from './responses-mcp-loop';
import { ResponsesRepository } from './responses.repository';
import { StoredResponseEntity } from './entities/stored-response.entity';
import { RestChatService } from './rest-chat.service';

@Module({
  imports: [TypeOrmModule.forFeature([StoredResponseEntity]), AuthModule, BillingModule, ProvidersModule],
  controllers: [ChatController, CompletionsController, ResponsesController, MessagesController],
  providers: [
    ImageInliner,
    FileUrlResolver,
    ChatContextService,
    ChatService,
    RestChatService,
    CompletionsService,
    ResponsesService,
    McpToolLoop,
    MessagesService,
    ResponsesRepository,
  ],
  exports: [ChatService],
})
export class ChatModule {
  /**
   * Chat with the modules that bind the ports its context assembly consumes (context/ports.ts):
   * StoreSearch and DocumentReader (knowledge), Scoring (rerank). The app passes them; chat imports
   * none of them itself. ProjectContextSource comes from the projects module, registered global.
   */
  static withPorts(bindings: Type[]): DynamicModule {
    // a plain module re-exporting the bindings, so they are scanned in the order given, like static imports
    @Module({ imports: bindings, exports: bindings })
    class ChatPortBindings {}
    return { module: ChatModule, imports: [ChatPortBindings] };
  }
}
