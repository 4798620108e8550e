/** What the stored-data fixture was made with, and what a later version must read back from it. */
export interface FixtureFacts {
  storageVersion: number;
  /** The user's API key in clear: a test key of a throwaway store, kept to authenticate with. */
  key: string;
  userId: string;
  workspaceId: string;
  sessionId: string;
  /** The UTC day the usage was counted on. */
  day: string;
}

export const FIXTURE_FILES: Record<string, string> = {
  'README.md': '# fixture\nStored by Weft to prove later versions read it.\n',
  'src/main.ts': 'export const answer = 42;\n',
  'secrets/token.txt': 'not for the model\n',
};

/** A deny on reads under secrets/: reads are allowed by default, so a refusal shows the stored rule applies. */
export const FIXTURE_RULES = { allow: [], ask: [], deny: ['Read(secrets/**)'] };

export const FIXTURE_ANSWER = 'The README says the data was stored by Weft.';
