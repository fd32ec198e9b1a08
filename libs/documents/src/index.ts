export * from './documents.module';
export * from './requisites/validators';
export { rubInWords, includedVatKopecks, formatRub } from './money/document-money';
