import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Post,
  Query,
  Res,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import { ApiBody, ApiConsumes, ApiOkResponse, ApiOperation, ApiParam, ApiProduces, ApiTags } from '@nestjs/swagger';
import type { Response } from 'express';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { FileDeletedDto, FileListDto, FileListQueryDto, FileObjectDto, UploadFileDto } from './dto/files.dto';
import { FilesService, MAX_FILE_BYTES, UploadedBytes } from './files.service';

/** Multipart upload into memory, one file, at most 10 MB (+1 byte so the service can name the limit). */
export const uploadInterceptor = () =>
  FileInterceptor('file', { limits: { fileSize: MAX_FILE_BYTES + 1, files: 1, fields: 10, fieldSize: 64 * 1024 } });

@ApiTags('Files')
@ApiKeyAuth()
@AllowSession()
@Controller('v1/files')
export class FilesController {
  constructor(private readonly files: FilesService) {}

  @Post()
  @HttpCode(200)
  @UseInterceptors(uploadInterceptor())
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: UploadFileDto })
  @ApiOperation({ summary: 'Upload a file (OpenAI-compatible; multipart `file` + `purpose`)' })
  @ApiOkResponse({ type: FileObjectDto })
  upload(
    @CurrentCaller() caller: Caller,
    @UploadedFile() file: UploadedBytes | undefined,
    @Body() body: UploadFileDto,
  ): Promise<FileObjectDto> {
    return this.files.upload(caller, file, body.purpose);
  }

  @Get()
  @ApiOperation({ summary: "The team's files, newest first (cursor pages: after, limit)" })
  @ApiOkResponse({ type: FileListDto })
  list(@CurrentCaller() caller: Caller, @Query() q: FileListQueryDto): Promise<FileListDto> {
    return this.files.list(caller, q);
  }

  @Get(':id')
  @ApiParam({ name: 'id', example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' })
  @ApiOperation({ summary: 'A file object' })
  @ApiOkResponse({ type: FileObjectDto })
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<FileObjectDto> {
    return this.files.get(caller, id);
  }

  @Get(':id/content')
  @ApiParam({ name: 'id', example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' })
  @ApiOperation({ summary: "A file's bytes" })
  @ApiProduces('application/octet-stream')
  @ApiOkResponse({ description: 'The bytes as uploaded', schema: { type: 'string', format: 'binary' } })
  async content(@CurrentCaller() caller: Caller, @Param('id') id: string, @Res() res: Response): Promise<void> {
    const { row, bytes } = await this.files.content(caller, id);
    res.setHeader('content-type', 'application/octet-stream');
    res.setHeader('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(row.filename)}`);
    res.setHeader('x-content-type-options', 'nosniff');
    res.status(200).end(bytes);
  }

  @Delete(':id')
  @ApiParam({ name: 'id', example: 'file-6f1c2a9b0d3e4f5a6b7c8d9e' })
  @ApiOperation({ summary: 'Delete a file' })
  @ApiOkResponse({ type: FileDeletedDto })
  delete(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<FileDeletedDto> {
    return this.files.delete(caller, id);
  }
}
