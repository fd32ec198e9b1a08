/**
 * The kinds of project material: the one list (projects' records, counts and requests, and chat's
 * `sources[].kind` follow it). The order is the order the API documents them in.
 *
 * - `inStore`: the material is a document of the project's own store (its text is ingested and
 *   searched); false only for an attached knowledge base, which stays a store of its own.
 * - `documentTitle`: the material record shows its document's extracted title (a PDF's title, a
 *   page's <title>) rather than the title it was given.
 * - `countExample`: the example of its count in the project record's `materials`.
 */
export const MATERIAL_KIND_RULES = {
  file: { inStore: true, documentTitle: true, countExample: 1 },
  link: { inStore: true, documentTitle: true, countExample: 1 },
  knowledge_base: { inStore: false, documentTitle: false, countExample: 1 },
  chat: { inStore: true, documentTitle: false, countExample: 0 },
  messenger_chat: { inStore: true, documentTitle: false, countExample: 0 },
  webhook: { inStore: true, documentTitle: false, countExample: 0 },
  external_api: { inStore: true, documentTitle: false, countExample: 0 },
} as const satisfies Record<string, { inStore: boolean; documentTitle: boolean; countExample: number }>;

export type MaterialKind = keyof typeof MATERIAL_KIND_RULES;
/** Kinds whose material is a document of the project's store (every kind but an attached knowledge base). */
export type StoreMaterialKind = Exclude<MaterialKind, 'knowledge_base'>;

export const MATERIAL_KINDS = Object.keys(MATERIAL_KIND_RULES) as MaterialKind[];
export const STORE_MATERIAL_KINDS = MATERIAL_KINDS.filter((k) => MATERIAL_KIND_RULES[k].inStore) as StoreMaterialKind[];
