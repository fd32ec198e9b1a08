import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Query,
  UploadedFile,
  UseInterceptors,
} from '@nestjs/common';
import { FileInterceptor } from '@nestjs/platform-express';
import {
  ApiBody,
  ApiConsumes,
  ApiExtraModels,
  ApiOkResponse,
  ApiAcceptedResponse,
  ApiCreatedResponse,
  ApiOperation,
  ApiParam,
  ApiTags,
  getSchemaPath,
} from '@nestjs/swagger';
import { MultipartOrJsonBody, PageQueryDto, ShapedBody } from '@app/common';
import { AllowSession, ApiKeyAuth, Caller, CurrentCaller } from '@app/auth';
import { MAX_FILE_BYTES, UploadedBytes } from '@app/knowledge';
import {
  AddFileDto,
  AddLinkDto,
  AttachChatDto,
  AttachKnowledgeBaseDto,
  CreateIntegrationDto,
  CreateProjectDto,
  IntegrationDto,
  MaterialDeletedDto,
  MaterialDto,
  MaterialListDto,
  MessengerChatUploadDto,
  ProjectDeletedDto,
  ProjectDto,
  ProjectListDto,
  SyncResultDto,
  UpdateProjectDto,
  ProjectFileUploadDto,
} from './dto/projects.dto';
import { IntegrationsService } from './integrations/integrations.service';
import { ProjectsService } from './projects.service';

const ID = { name: 'id', example: 'prj_1a2b3c4d5e6f7a8b9c0d1e2f' };
const MATERIAL_ID = { name: 'material_id', example: 'mat_1a2b3c4d5e6f7a8b9c0d1e2f' };
const upload = () =>
  FileInterceptor('file', { limits: { fileSize: MAX_FILE_BYTES + 1, files: 1, fields: 10, fieldSize: 64 * 1024 } });

/** Projects and their materials (api-key header; a project of another team answers 404). */
@ApiTags('Projects')
@ApiExtraModels(ProjectFileUploadDto, AddFileDto)
@ApiKeyAuth()
@AllowSession()
@Controller('api/v1/projects')
export class ProjectsController {
  constructor(
    private readonly projects: ProjectsService,
    private readonly integrations: IntegrationsService,
  ) {}

  @Post()
  @HttpCode(201)
  @ApiOperation({
    summary: 'Create a project (RAG defaults: top_k 15, rerank true, file_threshold 0.3, kb_threshold 0.1)',
  })
  @ApiCreatedResponse({ type: ProjectDto })
  async create(@CurrentCaller() caller: Caller, @Body() dto: CreateProjectDto): Promise<ProjectDto> {
    return this.projects.create(caller, dto);
  }

  @Get()
  @ApiOperation({ summary: "The team's projects, newest first (cursor pages: after, limit, order)" })
  @ApiOkResponse({ type: ProjectListDto })
  list(@CurrentCaller() caller: Caller, @Query() q: PageQueryDto): Promise<ProjectListDto> {
    return this.projects.list(caller, q);
  }

  @Get(':id')
  @ApiOperation({ summary: 'Retrieve a project' })
  @ApiParam(ID)
  @ApiOkResponse({ type: ProjectDto })
  get(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<ProjectDto> {
    return this.projects.get(caller.teamId, id);
  }

  @Patch(':id')
  @ApiOperation({ summary: "Change a project's name, description, instructions or mode" })
  @ApiParam(ID)
  @ApiOkResponse({ type: ProjectDto })
  async update(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() dto: UpdateProjectDto,
  ): Promise<ProjectDto> {
    return this.projects.update(caller, id, dto);
  }

  @Delete(':id')
  @ApiParam(ID)
  @ApiOperation({ summary: 'Delete the project with its materials (attached knowledge bases are not deleted)' })
  @ApiOkResponse({ type: ProjectDeletedDto })
  async delete(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<ProjectDeletedDto> {
    await this.projects.delete(caller, id);
    return { id, deleted: true };
  }

  // ── materials ──────────────────────────────────────────────────────────────────────────────────

  @Get(':id/materials')
  @ApiParam(ID)
  @ApiOperation({ summary: 'All materials of the project, oldest first, with their ingestion status' })
  @ApiOkResponse({ type: MaterialListDto })
  async materials(@CurrentCaller() caller: Caller, @Param('id') id: string): Promise<MaterialListDto> {
    return { data: await this.projects.listMaterials(caller, id) };
  }

  @Get(':id/materials/:material_id')
  @ApiOperation({ summary: 'Retrieve a material with its ingestion status' })
  @ApiParam(ID)
  @ApiParam(MATERIAL_ID)
  @ApiOkResponse({ type: MaterialDto })
  material(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('material_id') materialId: string,
  ): Promise<MaterialDto> {
    return this.projects.material(caller.teamId, id, materialId);
  }

  @Delete(':id/materials/:material_id')
  @ApiOperation({ summary: 'Delete a material and its chunks' })
  @ApiParam(ID)
  @ApiParam(MATERIAL_ID)
  @ApiOkResponse({ type: MaterialDeletedDto })
  async deleteMaterial(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('material_id') materialId: string,
  ): Promise<MaterialDeletedDto> {
    await this.projects.deleteMaterial(caller, id, materialId);
    return { id: materialId, deleted: true };
  }

  @Post(':id/materials/:material_id/refresh')
  @HttpCode(202)
  @ApiParam(ID)
  @ApiParam(MATERIAL_ID)
  @ApiOperation({
    summary: 'Fetch a link again (unchanged content is not re-embedded) or re-run the ingestion of a text material',
  })
  @ApiAcceptedResponse({ type: MaterialDto })
  refresh(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('material_id') materialId: string,
  ): Promise<MaterialDto> {
    return this.projects.refreshMaterial(caller, id, materialId);
  }

  @Post(':id/files')
  @HttpCode(202)
  @UseInterceptors(upload())
  @ApiParam(ID)
  @ApiConsumes('multipart/form-data', 'application/json')
  @ApiBody({ schema: { oneOf: [{ $ref: getSchemaPath(ProjectFileUploadDto) }, { $ref: getSchemaPath(AddFileDto) }] } })
  @ApiOperation({
    summary:
      'Add a file: multipart `file`, or JSON `{file_id}` of an uploaded /v1/files id. Documents are ingested asynchronously; images are stored for vision models.',
  })
  @ApiAcceptedResponse({ type: MaterialDto })
  async addFile(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @UploadedFile() file: UploadedBytes | undefined,
    @MultipartOrJsonBody({
      multipart: null,
      json: AddFileDto,
      shape: 'The body must be JSON {file_id} (or multipart with a file).',
    })
    input: ShapedBody<object, AddFileDto>,
  ): Promise<MaterialDto> {
    if (input.kind === 'multipart') return this.projects.addUpload(caller, id, file);
    return this.projects.addFileId(caller, id, input.body.file_id);
  }

  @Post(':id/links')
  @HttpCode(202)
  @ApiParam(ID)
  @ApiOperation({
    summary:
      'Add a web link (fetched through the SSRF guard and parsed asynchronously; a refused address fails the material)',
  })
  @ApiAcceptedResponse({ type: MaterialDto })
  addLink(@CurrentCaller() caller: Caller, @Param('id') id: string, @Body() dto: AddLinkDto): Promise<MaterialDto> {
    return this.projects.addLink(caller, id, dto.url);
  }

  @Post(':id/knowledge-bases')
  @HttpCode(201)
  @ApiParam(ID)
  @ApiOperation({
    summary: 'Attach a knowledge base of the team (many-to-many; attaching twice returns the same material)',
  })
  @ApiCreatedResponse({ type: MaterialDto })
  attachKb(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() dto: AttachKnowledgeBaseDto,
  ): Promise<MaterialDto> {
    return this.projects.attachKnowledgeBase(caller, id, dto.knowledge_base_id);
  }

  @Delete(':id/knowledge-bases/:kb_id')
  @ApiParam(ID)
  @ApiParam({ name: 'kb_id', example: 'vs_1a2b3c4d5e6f7a8b9c0d1e2f' })
  @ApiOperation({ summary: 'Detach a knowledge base (the knowledge base itself stays)' })
  @ApiOkResponse({ type: MaterialDeletedDto })
  async detachKb(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('kb_id') kbId: string,
  ): Promise<MaterialDeletedDto> {
    await this.projects.detachKnowledgeBase(caller, id, kbId);
    return { id: kbId, deleted: true };
  }

  @Post(':id/chats')
  @HttpCode(202)
  @ApiParam(ID)
  @ApiOperation({
    summary: 'Attach a chat `{title, messages: [{role, content, created_at?}]}`; indexed in windows of whole messages',
  })
  @ApiAcceptedResponse({ type: MaterialDto })
  attachChat(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() dto: AttachChatDto,
  ): Promise<MaterialDto> {
    return this.projects.attachChat(caller, id, dto);
  }

  @Post(':id/messenger-chats')
  @HttpCode(202)
  @UseInterceptors(upload())
  @ApiParam(ID)
  @ApiConsumes('multipart/form-data')
  @ApiBody({ type: MessengerChatUploadDto })
  @ApiOperation({
    summary: 'Import a messaging-app export: Telegram Desktop result.json, WhatsApp .txt, or Slack export .zip',
  })
  @ApiAcceptedResponse({ type: MaterialDto })
  async messengerChat(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @UploadedFile() file: UploadedBytes | undefined,
    @MultipartOrJsonBody({
      multipart: MessengerChatUploadDto,
      json: MessengerChatUploadDto,
      shape: 'The body must be multipart with `file` and `format`.',
    })
    input: ShapedBody<MessengerChatUploadDto, MessengerChatUploadDto>,
  ): Promise<MaterialDto> {
    return this.projects.addMessengerChat(caller, id, input.body.format, file, input.body.title);
  }

  @Post(':id/integrations')
  @AllowSession('admin')
  @HttpCode(201)
  @ApiParam(ID)
  @ApiOperation({
    summary:
      'Add an integration: `{type:"webhook", name}` returns the hook URL and its signing secret (shown once); `{type:"external_api", name, url, method, headers, body?, json_path?, interval_seconds ≥ 300}` is fetched on a schedule',
  })
  @ApiCreatedResponse({ type: IntegrationDto })
  async addIntegration(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Body() dto: CreateIntegrationDto,
  ): Promise<IntegrationDto> {
    return this.integrations.create(caller, id, dto);
  }

  @Post(':id/integrations/:integration_id/sync')
  @AllowSession('admin')
  @HttpCode(200)
  @ApiParam(ID)
  @ApiParam({ name: 'integration_id', example: 'int_1a2b3c4d5e6f7a8b9c0d1e2f' })
  @ApiOperation({ summary: 'Fetch an external_api integration now; unchanged content (same hash) is not re-embedded' })
  @ApiOkResponse({ type: SyncResultDto })
  sync(
    @CurrentCaller() caller: Caller,
    @Param('id') id: string,
    @Param('integration_id') integrationId: string,
  ): Promise<SyncResultDto> {
    return this.integrations.sync(caller, id, integrationId);
  }
}
