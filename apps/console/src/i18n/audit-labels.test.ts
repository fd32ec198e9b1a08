import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import i18n from './index';
import { auditActionLabel, auditPart } from './audit-labels';
import { AUDIT_ACTIONS, AUDIT_OBJECT_TYPES } from '../features/audit/audit-actions';

/** The actions and object types the server declares in its API schema (kept complete by a server test). */
const schema = JSON.parse(readFileSync(resolve(__dirname, '../../../../docs/openapi.json'), 'utf8')) as {
  components: { schemas: Record<string, { properties: Record<string, { enum?: string[] }> }> };
};
const entry = schema.components.schemas.AuditEntryDto.properties;
const serverActions = entry.action.enum ?? [];
const serverTypes = entry.target_type.enum ?? [];
const actorTypes = entry.actor_type.enum ?? [];

const own = (lang: string, key: string) => i18n.getResource(lang, 'translation', key) as unknown;

describe('audit labels', () => {
  it('the console lists exactly the actions and object types the server declares', () => {
    expect(serverActions.length).toBeGreaterThan(40);
    expect([...AUDIT_ACTIONS].sort()).toEqual([...serverActions].sort());
    expect([...AUDIT_OBJECT_TYPES].sort()).toEqual([...serverTypes].sort());
  });

  it.each(['ru', 'en'])('every action the server can write has a %s label for each of its parts', (lang) => {
    for (const action of serverActions) {
      const parts = action.split('.');
      const verb = parts.pop()!;
      for (const p of parts)
        expect(own(lang, `auditObjects.${p}`), `${action}: object ${p}`).toEqual(expect.any(String));
      expect(own(lang, `auditVerbs.${verb}`), `${action}: verb ${verb}`).toEqual(expect.any(String));
    }
    for (const type of serverTypes) expect(own(lang, `auditObjects.${type}`), type).toEqual(expect.any(String));
    for (const type of actorTypes) expect(own(lang, `actorTypes.${type}`), type).toEqual(expect.any(String));
  });

  it('Russian labels carry no code and no English word', () => {
    for (const action of serverActions) {
      const label = auditActionLabel(action, 'ru');
      expect(label, action).not.toMatch(/_/);
      // Latin letters only inside the established acronyms (API-ключ, MCP-сервер)
      expect(label.replace(/\b(API|MCP)\b/g, ''), action).not.toMatch(/[a-z]/i);
    }
    expect(auditActionLabel('api_key.create', 'ru')).toBe('API-ключ: создание');
    expect(auditActionLabel('catalog.model.update', 'ru')).toBe('каталог · модель: изменение');
    expect(auditActionLabel('api_key.create', 'en')).toBe('API key: created');
  });

  it('an action the console does not know yet reads as a neutral Russian word, never as English', () => {
    expect(auditActionLabel('widget.frobnicate', 'ru')).toBe('объект: действие');
    expect(auditPart('auditReasons', 'something_new', 'ru')).toBe('другая причина');
    expect(auditActionLabel('widget.frobnicate', 'en')).toBe('widget: frobnicate');
  });
});
