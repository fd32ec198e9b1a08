import { Foundation1732000000000 } from './1732000000000-foundation';
import { Images1745000000000 } from './1745000000000-images';
import { Knowledge1750000000000 } from './1750000000000-knowledge';
import { ExactCharges1755000000000 } from './1755000000000-exact-charges';
import { Projects1760000000000 } from './1760000000000-projects';
import { Governance1765000000000 } from './1765000000000-governance';
import { Accounts1795625253943 } from './1795625253943-accounts';
import { IngestParseRuns1795625733761 } from './1795625733761-ingest-parse-runs';
import { VectorStoreExpiry1795625738288 } from './1795625738288-vector-store-expiry';
import { StoredResponses1795627137807 } from './1795627137807-stored-responses';
import { TeamDeletion1795630478577 } from './1795630478577-team-deletion';
import { Alerts1795725428089 } from './1795725428089-alerts';
import { RequestLog1795725464873 } from './1795725464873-request-log';
import { DocumentVersions1795729346029 } from './1795729346029-document-versions';
import { SearchTerms1795800000000 } from './1795800000000-search-terms';
import { ChunkCompression1795900000000 } from './1795900000000-chunk-compression';
import { Payments1796600000000 } from './1796600000000-payments';
import { Documents1796700000000 } from './1796700000000-documents';
import { LoginThrottle1797500000000 } from './1797500000000-login-throttle';
import { Pricing1797000000000 } from './1797000000000-pricing';
import { DataProtection1797100000000 } from './1797100000000-data-protection';
import { Mcp1797200000000 } from './1797200000000-mcp';
import { McpAdhocServers1797700000000 } from './1797700000000-mcp-adhoc-servers';
import { AlertChannelLanguage1798200000000 } from './1798200000000-alert-channel-language';
import { FileParts1798400000000 } from './1798400000000-file-parts';

/** Ordered list of every migration; the same list runs on Postgres and SQLite. */
export const migrations = [
  Foundation1732000000000,
  Images1745000000000,
  Knowledge1750000000000,
  ExactCharges1755000000000,
  Projects1760000000000,
  Governance1765000000000,
  Accounts1795625253943,
  IngestParseRuns1795625733761,
  VectorStoreExpiry1795625738288,
  StoredResponses1795627137807,
  TeamDeletion1795630478577,
  Alerts1795725428089,
  RequestLog1795725464873,
  DocumentVersions1795729346029,
  SearchTerms1795800000000,
  ChunkCompression1795900000000,
  Payments1796600000000,
  Documents1796700000000,
  Pricing1797000000000,
  DataProtection1797100000000,
  Mcp1797200000000,
  LoginThrottle1797500000000,
  McpAdhocServers1797700000000,
  AlertChannelLanguage1798200000000,
  FileParts1798400000000,
];
