import type { VatRate } from '../money/document-money';

/** The operator's company as it appears on invoices and acts. */
export interface SellerRequisites {
  legalName: string;
  inn: string;
  kpp: string | null;
  ogrn: string;
  address: string;
  bankName: string;
  bik: string;
  account: string;
  corrAccount: string;
  vatRate: VatRate;
  signatory: string;
  accountant: string | null;
}

/** A team's company (the buyer). */
export interface TeamRequisites {
  legalName: string;
  inn: string;
  kpp: string | null;
  address: string;
  emailForDocuments: string | null;
}

/** Both parties of a document, as they were when it was made. */
export interface DocumentParties {
  seller: SellerRequisites;
  buyer: TeamRequisites;
}
