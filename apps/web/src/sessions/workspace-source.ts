import type { ApiClient } from '../api/client';
import { formatBytes } from '../time';
import { archiveBaseName, archiveForUpload } from '../upload/archive';
import { type PickedFolder, packFolder } from '../upload/pack-folder';

export type Source = 'upload' | 'archive' | 'git' | 'existing';

/** What the form holds for each way of getting a workspace; switching source keeps the others'. */
export interface WorkspaceDraft {
  readonly source: Source;
  readonly folder: PickedFolder | null;
  readonly archive: File | null;
  readonly gitUrl: string;
  readonly gitRef: string;
  readonly workspaceId: string;
}

export const emptyDraft: WorkspaceDraft = { source: 'upload', folder: null, archive: null, gitUrl: '', gitRef: '', workspaceId: '' };

/**
 * The workspace the draft names: packed and uploaded, cloned, or the one chosen. A draft that
 * lacks what its source needs is refused with what to do; `onProgress` hears each step.
 */
export async function workspaceFor(api: ApiClient, draft: WorkspaceDraft, onProgress: (step: string) => void): Promise<string> {
  switch (draft.source) {
    case 'upload': {
      const { folder } = draft;
      if (!folder || folder.files.length === 0) throw new Error('Choose a folder with at least one file to upload.');
      onProgress(`Packing ${folder.files.length} files…`);
      const archive = await packFolder(folder);
      onProgress(`Uploading ${formatBytes(archive.size)}…`);
      return api.uploadWorkspace(archive, folder.name);
    }
    case 'archive': {
      const { archive } = draft;
      if (!archive) throw new Error('Choose an archive (.tar.gz, .tgz, .tar or .zip) to upload.');
      onProgress(`Reading ${archive.name}…`);
      const packed = await archiveForUpload(archive);
      onProgress(`Uploading ${formatBytes(packed.size)}…`);
      return api.uploadWorkspace(packed, archiveBaseName(archive.name));
    }
    case 'git': {
      const url = draft.gitUrl.trim();
      if (!url) throw new Error('Give the repository URL to clone.');
      onProgress(`Cloning ${url}…`);
      const ref = draft.gitRef.trim();
      return api.importWorkspace({ url, ...(ref ? { ref } : {}) });
    }
    case 'existing':
      if (!draft.workspaceId) throw new Error('Choose a workspace.');
      return draft.workspaceId;
  }
}
