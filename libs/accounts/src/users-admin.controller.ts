import { Body, Controller, Get, Param, ParseUUIDPipe, Patch, Post, Query, Req } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { Request } from 'express';
import { ApiError } from '@app/common';
import { AdminAuth } from '@app/auth';
import { AccountsService } from './accounts.service';
import { actorOf } from './audit';
import { CreatedUserDto, CreateUserDto, UpdateUserDto, UserDto, UserListDto } from './dto/auth.dto';
import { UserListQueryDto } from './dto/audit.dto';

const uuid = new ParseUUIDPipe({ exceptionFactory: () => ApiError.notFound('No such id.', 'not_found', 'id') });

/** Users, for operators (ADMIN_TOKEN or an operator's session). */
@ApiTags('Admin')
@AdminAuth()
@Controller('api/v1/admin/users')
export class UsersAdminController {
  constructor(private readonly accounts: AccountsService) {}

  @Get()
  @ApiOperation({ summary: 'List users (id order, cursor pagination with `after`)' })
  @ApiOkResponse({ type: UserListDto })
  list(@Query() q: UserListQueryDto): Promise<UserListDto> {
    return this.accounts.listUsers(q.limit ?? 100, q.after);
  }

  @Post()
  @ApiOperation({ summary: 'Create a user (optionally an operator); a generated password is returned once' })
  @ApiCreatedResponse({ type: CreatedUserDto })
  create(@Body() body: CreateUserDto, @Req() req: Request): Promise<CreatedUserDto> {
    return this.accounts.createUser(body, actorOf(req));
  }

  @Get(':id')
  @ApiOperation({ summary: 'Get a user' })
  @ApiOkResponse({ type: UserDto })
  get(@Param('id', uuid) id: string): Promise<UserDto> {
    return this.accounts.getUser(id);
  }

  @Patch(':id')
  @ApiOperation({ summary: 'Rename, disable / enable a user, or grant / withdraw operator rights' })
  @ApiOkResponse({ type: UserDto })
  update(@Param('id', uuid) id: string, @Body() body: UpdateUserDto, @Req() req: Request): Promise<UserDto> {
    return this.accounts.updateUser(id, body, actorOf(req));
  }
}
