/** The answers this page reads, typed from the gateway's own schemas (libs/contracts), under the page's names. */
export type { ChainListing, FileEntry, Folder, Me, Note, PermissionDecision, ServerSettings, Session, SessionSummary } from '@weft/contracts';
export type { ListedModel as ModelInfo, WorkspaceSummary as Workspace } from '@weft/contracts';
