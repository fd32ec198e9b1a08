import type { components } from '../../api/schema';

export type AuditAction = components['schemas']['AuditEntryDto']['action'];
export type AuditObjectType = NonNullable<components['schemas']['AuditEntryDto']['target_type']>;

/**
 * The actions and object types the server writes, as its API schema lists them (the compiler
 * refuses a list that misses one or names one the schema does not have).
 */
export const AUDIT_ACTIONS = [
  'alert.create',
  'alert.delete',
  'alert.update',
  'api_key.create',
  'api_key.revoke',
  'api_key.rotate',
  'api_key.update',
  'auth.login',
  'auth.login_failed',
  'auth.logout',
  'auth.password_change',
  'auth.session_revoke',
  'bank_statement.upload',
  'catalog.model.reset',
  'catalog.model.update',
  'document.create',
  'document.delete',
  'document.refresh',
  'document.retry',
  'document.update',
  'file.create',
  'file.delete',
  'file_batch.cancel',
  'file_batch.create',
  'integration.create',
  'invitation.accept',
  'invitation.create',
  'invitation.revoke',
  'invoice.issue',
  'invoice.paid',
  'knowledge_base.create',
  'knowledge_base.delete',
  'knowledge_base.update',
  'material.create',
  'material.delete',
  'mcp_server.create',
  'mcp_server.delete',
  'mcp_server.update',
  'member.add',
  'member.leave',
  'member.remove',
  'member.role_change',
  'project.create',
  'project.delete',
  'project.update',
  'seller.requisites.update',
  'team.create',
  'team.data_policy.update',
  'team.delete',
  'team.pricing.update',
  'team.requisites.update',
  'team.top_up',
  'team.update',
  'user.create',
  'user.disable',
  'user.enable',
  'user.operator_change',
  'user.update',
] as const satisfies readonly AuditAction[];

export const AUDIT_OBJECT_TYPES = [
  'alert',
  'api_key',
  'bank_statement',
  'document',
  'file',
  'file_batch',
  'integration',
  'invitation',
  'invoice',
  'knowledge_base',
  'material',
  'mcp_server',
  'model',
  'project',
  'seller',
  'session',
  'team',
  'user',
] as const satisfies readonly AuditObjectType[];

type Missing<All, Listed> = [Exclude<All, Listed>] extends [never] ? true : Exclude<All, Listed>;
// a compile error names the action or type the schema has and the list lacks
export const everyActionListed: Missing<AuditAction, (typeof AUDIT_ACTIONS)[number]> = true;
export const everyObjectTypeListed: Missing<AuditObjectType, (typeof AUDIT_OBJECT_TYPES)[number]> = true;
